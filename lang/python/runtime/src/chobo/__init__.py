"""chobo's Python runtime: what every generated Python client of a chobo
book shares, whatever the book and the backend."""
