// Tests for SensorDecodeTests are added by their modules' work.
