"""FIBS board lines the tests read: the protocol's own example and lines gnubg 1.07 wrote
to its external player."""

# The example of the FIBS client protocol: you (O, moving 24 to 1) rolled 62 at the start.
FIBS_EXAMPLE = (
    "board:You:someplayer:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:"
    "1:6:2:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0"
)
# Lines gnubg 1.07 wrote to its external player 1 ("root"), after `set score 1 3` in a
# 5-point match: root to roll; root owning a 2-cube with 31 rolled; gnubg doubled root.
GNUBG_ROLL = (
    "board:gnubg:root:5:1:3:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:"
    "0:0:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1"
)
GNUBG_MOVE = (
    "board:gnubg:root:5:1:3:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:"
    "3:1:3:1:2:1:0:0:1:-1:0:25:0:0:0:0:0:0:0:1"
)
GNUBG_DOUBLED = (
    "board:root:gnubg:5:3:1:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:-1:"
    "0:0:0:0:2:0:1:1:1:-1:0:25:0:0:0:0:0:0:0:1"
)
