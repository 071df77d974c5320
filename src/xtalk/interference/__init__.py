"""Interference channels: the shared resources through which a neighbour can delay the
measurer, the stressor that loads each by default, and the channel study over them
(docs/channels.md)."""
