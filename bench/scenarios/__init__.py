"""The load benchmark's parts (bench/load.py is their command line): `side`, one server
under test and the tables the client holds at it; `steady`, one run at an offered rate;
`search`, the highest rate that passes; `bots_beside`, bot-only tables playing beside;
`rounds`, both servers measured again and again, and the ratios."""
