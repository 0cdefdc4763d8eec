"""Friends' clubs as pure functions: the figures, declared once (`figures`), a game's
figures from its stored hands (`stats`) and the members' ratings (`ratings`). No I/O: the
store calls them in a game's end transaction."""
