"""Bot tests use no database: they import games.bots and games.engine only."""
