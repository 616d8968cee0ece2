"""Evaluation: the engine's internals that bots, analysis and rollouts share.

Network inputs (:mod:`~backgammon.evaluation.encode`), the nets
(:mod:`~backgammon.evaluation.net`), evaluators over them and the bear-off databases
(:mod:`~backgammon.evaluation.evaluator`), lookahead (:mod:`~backgammon.evaluation.search`),
the match equity table and the cube's formulas (:mod:`~backgammon.evaluation.met`,
:mod:`~backgammon.evaluation.cube`).  It knows nothing of the bots: :mod:`backgammon.players`
builds them on top of it, as wildbg's logic sits on its engine.
"""
