"""English given-name nicknames: "Bill" is William, "Peggy" is Margaret.

The table is OURS: written for this project from common knowledge of English-language
diminutives (the kind any baby-name book lists), not copied from a published list. It is plain
data; add a row where a clerk finds a pair missing. Keys and values are upper-case ASCII as
`normalize_name` returns them.

A nickname can stand for more than one formal name ("AL": Albert, Alan, Alfred); a formal name
has many nicknames. `given_name_forms` gives every form a name is equivalent to (itself, its
formal names, and their other nicknames are NOT included: "AL" and "FRED" are both Alfred, but a
signer "Al" is not thereby a "Fred").
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

__all__ = [
    "KNOWN_GIVEN_NAMES",
    "NICKNAMES",
    "canonical_given_name",
    "given_name_forms",
    "same_given_name",
]

# formal name -> its common nicknames
FORMAL_NICKNAMES: Mapping[str, tuple[str, ...]] = {
    "ABIGAIL": ("ABBY", "ABBIE", "GAIL"),
    "ABRAHAM": ("ABE",),
    "ALBERT": ("AL", "BERT", "BERTIE"),
    "ALEXANDER": ("ALEX", "AL", "SANDY", "XANDER", "ALEC"),
    "ALEXANDRA": ("ALEX", "SANDRA", "SANDY", "LEXI"),
    "ALFRED": ("AL", "ALF", "FRED", "FREDDIE"),
    "ALLAN": ("AL",),
    "ALAN": ("AL",),
    "ANDREW": ("ANDY", "DREW"),
    "ANTHONY": ("TONY",),
    "ARTHUR": ("ART", "ARTIE"),
    "BARBARA": ("BARB", "BABS", "BARBIE"),
    "BENJAMIN": ("BEN", "BENNY", "BENJI"),
    "BERNARD": ("BERNIE",),
    "BEATRICE": ("BEA", "TRIXIE"),
    "CATHERINE": ("CATHY", "CATE", "KATE", "KATIE", "KITTY"),
    "CHARLES": ("CHARLIE", "CHUCK", "CHAS", "CHAZ"),
    "CHRISTINA": ("CHRIS", "TINA", "CHRISSY"),
    "CHRISTINE": ("CHRIS", "TINA", "CHRISSY"),
    "CHRISTOPHER": ("CHRIS", "KIT", "TOPHER"),
    "CYNTHIA": ("CINDY",),
    "DANIEL": ("DAN", "DANNY"),
    "DAVID": ("DAVE", "DAVEY"),
    "DEBORAH": ("DEB", "DEBBIE", "DEBBY"),
    "DENNIS": ("DENNY",),
    "DONALD": ("DON", "DONNIE"),
    "DOROTHY": ("DOT", "DOTTIE", "DOLLY"),
    "DOUGLAS": ("DOUG",),
    "EDWARD": ("ED", "EDDIE", "NED", "TED", "TEDDY"),
    "EDMUND": ("ED", "NED"),
    "EDWIN": ("ED",),
    "ELEANOR": ("ELLIE", "NELL", "NELLIE", "NORA"),
    "ELIZABETH": ("BETH", "BETSY", "BETTY", "LIZ", "LIZZIE", "LIZA", "ELIZA", "BESS", "LIBBY"),
    "EUGENE": ("GENE",),
    "FRANCES": ("FRAN", "FRANNIE"),
    "FRANCIS": ("FRANK", "FRAN"),
    "FRANKLIN": ("FRANK",),
    "FREDERICK": ("FRED", "FREDDIE", "FRITZ"),
    "GERALD": ("GERRY", "JERRY"),
    "GREGORY": ("GREG",),
    "HAROLD": ("HAL", "HARRY"),
    "HENRY": ("HANK", "HARRY", "HAL"),
    "HERBERT": ("HERB", "BERT"),
    "ISABEL": ("IZZY", "BELLA"),
    "JACOB": ("JAKE",),
    "JAMES": ("JIM", "JIMMY", "JAMIE"),
    "JANET": ("JAN",),
    "JEFFREY": ("JEFF",),
    "JENNIFER": ("JEN", "JENNY"),
    "JOHN": ("JACK", "JOHNNY"),
    "JONATHAN": ("JON", "JONNY"),
    "JOSEPH": ("JOE", "JOEY"),
    "JOSEPHINE": ("JO", "JOSIE"),
    "JUDITH": ("JUDY",),
    "KATHERINE": ("KATHY", "KATE", "KATIE", "KAY", "KIT"),
    "KATHLEEN": ("KATHY", "KATE"),
    "KENNETH": ("KEN", "KENNY"),
    "LAWRENCE": ("LARRY",),
    "LEONARD": ("LEN", "LENNY", "LEO"),
    "MARGARET": ("PEGGY", "PEG", "MAGGIE", "MEG", "MARGE", "MARGIE", "GRETA", "DAISY"),
    "MARTHA": ("MARTY", "PATTY"),
    "MARTIN": ("MARTY",),
    "MARY": ("MOLLY", "POLLY", "MAMIE"),
    "MATTHEW": ("MATT", "MATTY"),
    "MICHAEL": ("MIKE", "MICKEY", "MICK"),
    "NATHANIEL": ("NATE", "NAT"),
    "NICHOLAS": ("NICK", "NICKY"),
    "PAMELA": ("PAM",),
    "PATRICIA": ("PAT", "PATTY", "TRISH", "TRICIA"),
    "PATRICK": ("PAT", "PADDY"),
    "PETER": ("PETE",),
    "PHILIP": ("PHIL",),
    "RAYMOND": ("RAY",),
    "REBECCA": ("BECKY", "BECCA"),
    "RICHARD": ("RICH", "RICK", "RICKY", "DICK", "RICHIE"),
    "ROBERT": ("BOB", "BOBBY", "ROB", "ROBBIE", "BERT"),
    "RONALD": ("RON", "RONNIE"),
    "SAMUEL": ("SAM", "SAMMY"),
    "SAMANTHA": ("SAM", "SAMMY"),
    "STEPHEN": ("STEVE", "STEVIE"),
    "STEVEN": ("STEVE", "STEVIE"),
    "SUSAN": ("SUE", "SUSIE", "SUZY"),
    "SUZANNE": ("SUE", "SUZY"),
    "THEODORE": ("TED", "TEDDY", "THEO"),
    "THOMAS": ("TOM", "TOMMY"),
    "TIMOTHY": ("TIM", "TIMMY"),
    "VICTORIA": ("VICKY", "TORI"),
    "VIRGINIA": ("GINNY", "GINGER"),
    "WALTER": ("WALT", "WALLY"),
    "WILLIAM": ("BILL", "BILLY", "WILL", "WILLIE", "LIAM"),
}


def _invert(formal: Mapping[str, tuple[str, ...]]) -> Mapping[str, tuple[str, ...]]:
    out: dict[str, list[str]] = {}
    for name, nicks in formal.items():
        for nick in nicks:
            out.setdefault(nick, []).append(name)
    return MappingProxyType({k: tuple(v) for k, v in out.items()})


# nickname -> the formal names it stands for (first listed is the usual one)
NICKNAMES: Mapping[str, tuple[str, ...]] = _invert(FORMAL_NICKNAMES)

# every name of the table, formal or nickname: real given names, whether or not a register has
# them (a name missing from a village's register may still be a housemate's)
KNOWN_GIVEN_NAMES: frozenset[str] = frozenset({*FORMAL_NICKNAMES, *NICKNAMES})


def canonical_given_name(name: str) -> str:
    """The formal name a given name is usually short for ("BILL" -> "WILLIAM"), or itself.

    Used for blocking keys: both sides map the same way, so "Bill" and "William" share a key."""
    forms = NICKNAMES.get(name)
    if forms and name not in FORMAL_NICKNAMES:
        return forms[0]
    return name


def given_name_forms(name: str) -> frozenset[str]:
    """The name and every formal name it may be short for, and, for a formal name, its
    nicknames: the names a signer `name` may be registered under."""
    return frozenset((name, *NICKNAMES.get(name, ()), *FORMAL_NICKNAMES.get(name, ())))


def same_given_name(a: str, b: str) -> bool:
    """True when one name is a nickname of the other ("PEGGY", "MARGARET") or they are equal."""
    if not a or not b:
        return False
    return a == b or b in given_name_forms(a) or a in given_name_forms(b)
