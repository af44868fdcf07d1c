"""What every stage shares: source spans, the one Diagnostic type, resource limits, the sheet root (where sheets may be read from), static value types."""
