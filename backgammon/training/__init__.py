"""Making and measuring the bots, apart from what a game needs at run time.

:mod:`~backgammon.training.td` trains the nets by TD(lambda) self-play,
:mod:`~backgammon.training.distill` teaches them their own 1-ply lookahead and
:mod:`~backgammon.training.duel` measures strength with duplicate dice; all of them play
games with :mod:`~backgammon.training.selfplay`.  What they train is played by
:mod:`backgammon.players`.
"""
