"""Loading: YAML read safely (bounded, no tags) into a SheetFile, then imports and bases flattened into one Model."""
