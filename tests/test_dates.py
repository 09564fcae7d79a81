import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline.dates import parse_written_date

REF = dt.date(2026, 10, 9)


@pytest.mark.parametrize(
    "text,expected",
    [
        ("10/03/2026", dt.date(2026, 10, 3)),
        ("10/3/26", dt.date(2026, 10, 3)),
        ("03-04-2026", dt.date(2026, 3, 4)),
        ("3.4.26", dt.date(2026, 3, 4)),
        ("2026-10-01", dt.date(2026, 10, 1)),
        ("Oct 3, 2026", dt.date(2026, 10, 3)),
        ("October 3rd 2026", dt.date(2026, 10, 3)),
        ("Sept. 20", dt.date(2026, 9, 20)),
        ("March 4", dt.date(2026, 3, 4)),
        ("Dec 1", dt.date(2025, 12, 1)),  # no year, and Dec 2026 is after the filing
        ("10/3", dt.date(2026, 10, 3)),
        ("", None),
        ("13/01/2026", None),
        ("2/30/2026", None),
        ("soon", None),
        ("Smarch 3", None),
    ],
)
def test_parse_written_date(text, expected):
    assert parse_written_date(text, reference=REF) == expected


@given(st.text(max_size=30))
def test_never_raises(text):
    parse_written_date(text, reference=REF)
