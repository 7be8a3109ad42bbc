// Tests for SensorStoreTests are added by their modules' work.
