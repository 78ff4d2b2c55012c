"""sed: the command (`command`) over its script parser (`parse`)."""
