"""Values schemas and missing values: a chart's schema with its references inlined or refused,
Helm's schema errors and the keys a failed render says are missing."""
