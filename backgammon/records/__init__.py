"""Match files: gnubg's .mat (:mod:`~backgammon.records.mat`) and SGF
(:mod:`~backgammon.records.sgf`), each read in one pass that drives a
:class:`~backgammon.play.match.Match` into the :class:`~backgammon.play.record.MatchRecord`,
the one walk of a record (:mod:`~backgammon.records.walk`), and conversion between them.
"""
