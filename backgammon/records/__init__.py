"""Match files: the file model (:mod:`~backgammon.records.matchfile`), gnubg's .mat
(:mod:`~backgammon.records.mat`) and SGF (:mod:`~backgammon.records.sgf`), each read in one
pass that drives a :class:`~backgammon.play.match.Match`, and conversion between them.
"""
