"""Friends' clubs as pure functions: a game's figures from its stored hands (`stats`) and
the members' ratings (`ratings`). No I/O: the store calls them in a game's end transaction."""
