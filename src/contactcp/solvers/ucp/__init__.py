"""contactcp subpackage."""
