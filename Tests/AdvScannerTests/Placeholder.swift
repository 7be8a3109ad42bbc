// Tests for AdvScannerTests are added by their modules' work.
