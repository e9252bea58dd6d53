"""One screen per module: main (conversation, ranking, memory), details, help, export, answers."""
