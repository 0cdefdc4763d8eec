"""Spades table server: rules engine, persistence, real-time hub, HTTP and WebSocket API."""
