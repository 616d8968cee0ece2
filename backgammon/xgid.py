"""The XGID names, now in :mod:`backgammon.ids`; kept so that ``backgammon.xgid`` imports work."""

from backgammon.ids import (
    InvalidXgidError,
    XgidFields,
    format_xgid,
    gnubg_id_from_xgid,
    match_id_fields_from_xgid,
    parse_xgid,
    xgid_from_gnubg_id,
)

__all__ = [
    "InvalidXgidError",
    "XgidFields",
    "format_xgid",
    "gnubg_id_from_xgid",
    "match_id_fields_from_xgid",
    "parse_xgid",
    "xgid_from_gnubg_id",
]
