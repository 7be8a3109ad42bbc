// SensorStore: SQLite storage of readings. See SensorStore.swift once written (issue 4).
