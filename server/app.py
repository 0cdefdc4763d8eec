"""FastAPI application factory (placeholder until the table server lands)."""

from fastapi import FastAPI


def create_app() -> FastAPI:
    return FastAPI(title="Spades")


app = create_app()
