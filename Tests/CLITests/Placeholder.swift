// Tests for CLITests are added by their modules' work.
