"""What every benchmark shares: `server` starts a table server (or the relay) in a
uvicorn subprocess, `tables` plays at its tables over HTTP and WebSockets, `hub` seats
tables through a hub in this process, `metrics` reads a server's /metrics, and `stats`
turns samples into the figures printed. The tests use `server`, `tables` and `hub` too."""
