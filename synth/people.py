"""Invented voters for the synthetic village register.

Every name, street and number here is made up from small built-in lists; the village of
Elmwood Falls and its people do not exist. Nothing is drawn from any real register.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
import random
from collections.abc import Collection
from dataclasses import dataclass

__all__ = [
    "FIRST_NAMES",
    "NICKNAMES",
    "SURNAMES",
    "UNREGISTERED_SURNAMES",
    "Village",
    "Voter",
    "build_register",
    "default_village",
    "unregistered_signer",
    "vary_register",
]

log = logging.getLogger(__name__)

FIRST_NAMES = (
    "Abel",
    "Agnes",
    "Alma",
    "Amos",
    "Ansel",
    "Beatrix",
    "Bram",
    "Calla",
    "Cyrus",
    "Delia",
    "Edda",
    "Elias",
    "Enid",
    "Ezra",
    "Flora",
    "Gideon",
    "Greta",
    "Hollis",
    "Ida",
    "Ilse",
    "Jasper",
    "Juno",
    "Kit",
    "Lark",
    "Linus",
    "Mabel",
    "Milo",
    "Nell",
    "Odette",
    "Orin",
    "Pell",
    "Quinn",
    "Rhoda",
    "Rufus",
    "Sable",
    "Silas",
    "Tamsin",
    "Thea",
    "Ulric",
    "Vesta",
    "Wren",
    "Yves",
    "Zora",
    "Otis",
    "Hazel",
    "Cora",
    "Jonah",
    "Ruth",
)
MIDDLE_NAMES = (
    "Ann",
    "Bell",
    "Claire",
    "Dale",
    "Eve",
    "Fay",
    "Grant",
    "Hope",
    "Jay",
    "Lee",
    "Mae",
    "Neil",
    "Pearl",
    "Rose",
    "Scott",
    "Troy",
    "Wade",
    "R",
    "T",
    "M",
)
SURNAMES = (
    "Alderwick",
    "Brambleton",
    "Copperfield",
    "Dunmore",
    "Elderberry",
    "Fernsby",
    "Gladwell",
    "Hollowell",
    "Ingleby",
    "Juniper",
    "Kettleby",
    "Larkspur",
    "Millbrook",
    "Nettlefold",
    "Oakhurst",
    "Pennywhistle",
    "Quillby",
    "Rookwood",
    "Sallowby",
    "Thistlewood",
    "Underhill",
    "Vantwerp",
    "Willowmere",
    "Yarrowby",
    "Ashgrove",
    "Birchall",
    "Cresswold",
    "Dovecote",
    "Emberly",
    "Foxglove",
    "Galloway",
    "Heathcote",
)
# Surnames used only for signers who are deliberately not on the register.
UNREGISTERED_SURNAMES = ("Zephyrwood", "Quartermoon", "Brightwater", "Nightingale-Oakes")


VILLAGE_STREETS = (
    "Maple Ave",
    "Mill St",
    "Orchard Ln",
    "Birch Rd",
    "Church St",
    "Willow Way",
    "Cedar Ct",
    "Hillcrest Dr",
)
APARTMENT_STREETS = ("Mill St", "Church St")
OUTSIDE_STREETS = ("Quarry Rd", "Stone Hill Rd", "Old Farm Rd")
SUFFIXES = ("Jr", "Sr", "III")


@dataclass(frozen=True, slots=True)
class Village:
    """The invented municipality and how its election districts split into wards."""

    village: str = "Elmwood Falls"
    town: str = "Greenfield"
    county: str = "Albany"
    county_code: str = "01"
    zip5: str = "12999"
    village_eds: tuple[str, ...] = ("1", "2", "3", "4")
    outside_eds: tuple[str, ...] = ("5", "6")

    def ward_of(self, ed: str) -> str:
        """Wards 1 and 2 of the village; the town outside the village has no ward."""
        if ed not in self.village_eds:
            return ""
        return "1" if self.village_eds.index(ed) < len(self.village_eds) // 2 else "2"

    def street_ed(self, street: str) -> str:
        if street in OUTSIDE_STREETS:
            return self.outside_eds[OUTSIDE_STREETS.index(street) % len(self.outside_eds)]
        return self.village_eds[VILLAGE_STREETS.index(street) % len(self.village_eds)]


def default_village() -> Village:
    return Village()


@dataclass(frozen=True, slots=True)
class Voter:
    """One entry of the synthetic register, holding what the NYS BOE export needs."""

    sboeid: str
    last_name: str
    first_name: str
    middle_name: str
    suffix: str
    house_number: str
    half_code: str
    apartment: str
    street_name: str
    city: str
    zip5: str
    town: str
    ward: str
    ed: str
    dob: dt.date
    gender: str
    enrollment: str
    reg_date: dt.date
    county_vr: str
    vr_source: str
    status: str = "A"
    reason_code: str = ""
    inactive_date: dt.date | None = None
    purge_date: dt.date | None = None
    last_voted: dt.date | None = None

    @property
    def printed_name(self) -> str:
        """As a signer prints it: first, middle initial, last, suffix."""
        initial = self.middle_name[:1]
        parts = (self.first_name, initial, self.last_name, self.suffix)
        return " ".join(p for p in parts if p)

    @property
    def residence(self) -> str:
        """House number (with fraction), street, apartment: "22 1/2 Mill St Apt 3"."""
        number = f"{self.house_number} {self.half_code}".strip()
        street = f"{number} {self.street_name}"
        return f"{street} Apt {self.apartment}" if self.apartment else street

    def elector_on(self, day: dt.date, village_eds: tuple[str, ...]) -> bool:
        """On the register of electors of the village on `day` (Village Law § 9-902(1)):
        in a village ED, not a pre-registered 17-year-old, registered on or before the day,
        and not purged on or before it (a later purge does not take the name off that day's
        register)."""
        return (
            self.ed in village_eds
            and self.status != "17"
            and self.reg_date <= day
            and not (self.purge_date is not None and self.purge_date <= day)
        )


def _rand_date(rng: random.Random, start: dt.date, end: dt.date) -> dt.date:
    return start + dt.timedelta(days=rng.randint(0, (end - start).days))


def build_register(
    rng: random.Random,
    village: Village,
    *,
    village_size: int,
    election: dt.date,
    adopted: dt.date,
) -> tuple[Voter, ...]:
    """Invent `village_size` voters living in the village's EDs plus a few town voters outside
    it. Households share an address; a few have Sr/Jr pairs, apartments or fractional house
    numbers. Statuses: mostly A, some I, some P (purged before or after `election`), two "17",
    and a few registered after `election` (electors now, but not on that day's register)."""
    serial = [100]
    used_names: set[str] = set()
    used_addresses: set[tuple[str, str, str, str]] = set()

    def new_id() -> tuple[str, str]:
        serial[0] += rng.randint(1, 37)
        return f"NY{serial[0]:016d}", f"{1000000 + serial[0]}"

    def household(streets: tuple[str, ...], count: int) -> list[Voter]:
        while True:
            street = rng.choice(streets)
            number = str(rng.randint(1, 160))
            half = "1/2" if rng.random() < 0.05 else ""
            apt = ""
            if street in APARTMENT_STREETS and rng.random() < 0.5:
                apt = rng.choice(("1", "2", "3", "4", "2B", "3A"))
            key = (number, half, street, apt)
            if key not in used_addresses:
                used_addresses.add(key)
                break
        ed = village.street_ed(street)
        surname = rng.choice(SURNAMES)
        pair = count >= 2 and rng.random() < 0.25
        people: list[Voter] = []
        for k in range(count):
            last = surname if rng.random() < 0.85 else rng.choice(SURNAMES)
            if pair and k == 1:  # the son of the Sr, same names, suffix Jr
                first, middle, last, suffix = people[0].first_name, "", surname, "Jr"
                probe = " ".join((first, last, suffix))
            else:
                for _ in range(200):
                    first = rng.choice(FIRST_NAMES)
                    middle = rng.choice(MIDDLE_NAMES) if rng.random() < 0.6 else ""
                    suffix = "III" if rng.random() < 0.03 else ""
                    if pair and k == 0:
                        last, suffix = surname, "Sr"
                    probe = " ".join(p for p in (first, middle[:1], last, suffix) if p)
                    if f"{first} {last}" not in used_names:
                        break
                used_names.add(f"{first} {last}")
            used_names.add(probe)
            sboeid, vr = new_id()
            people.append(
                Voter(
                    sboeid=sboeid,
                    last_name=last,
                    first_name=first,
                    middle_name=middle,
                    suffix=suffix,
                    house_number=number,
                    half_code=half,
                    apartment=apt,
                    street_name=street,
                    city=village.village if ed in village.village_eds else village.town,
                    zip5=village.zip5,
                    town=village.town,
                    ward=village.ward_of(ed),
                    ed=ed,
                    dob=_rand_date(rng, dt.date(1940, 1, 1), dt.date(2005, 12, 31)),
                    gender=rng.choice(("M", "F")),
                    enrollment=rng.choice(("DEM", "REP", "BLK", "BLK", "CON", "WOR")),
                    reg_date=_rand_date(rng, dt.date(1985, 1, 1), dt.date(2025, 10, 1)),
                    county_vr=vr,
                    vr_source=rng.choice(("DMV", "MAIL", "CBOE", "AGCY")),
                    last_voted=_rand_date(rng, dt.date(2022, 11, 1), dt.date(2025, 11, 4)),
                )
            )
        return people

    inside: list[Voter] = []
    while len(inside) < village_size:
        size = min(rng.choice((1, 1, 2, 2, 2, 3, 3, 4)), village_size - len(inside))
        inside.extend(household(VILLAGE_STREETS, size))
    outside: list[Voter] = []
    while len(outside) < max(6, village_size // 10):
        outside.extend(household(OUTSIDE_STREETS, rng.choice((1, 2))))

    # Statuses on the village voters, by explicit counts so every case is present.
    order = list(range(len(inside)))
    rng.shuffle(order)
    n_purged = max(4, village_size * 6 // 100)
    n_inactive = max(3, village_size * 8 // 100)
    n_late = max(3, village_size * 4 // 100)
    picks = iter(order)
    for k in range(n_purged):
        i = next(picks)
        if k % 2 == 0:  # purged before the election: not on that day's register
            when = _rand_date(rng, dt.date(2024, 1, 1), election - dt.timedelta(days=20))
            reg = _rand_date(rng, dt.date(1990, 1, 1), dt.date(2020, 1, 1))
        else:  # purged after the election: on that day's register, not an elector now
            when = _rand_date(rng, election + dt.timedelta(days=14), adopted - dt.timedelta(days=7))
            reg = _rand_date(rng, dt.date(1990, 1, 1), dt.date(2020, 1, 1))
        inside[i] = dataclasses.replace(
            inside[i],
            status="P",
            purge_date=when,
            reg_date=reg,
            reason_code=rng.choice(("MOVED", "DEATH", "NCOA", "RETURN-MAIL")),
        )
    for _ in range(n_inactive):
        i = next(picks)
        when = _rand_date(rng, dt.date(2023, 1, 1), dt.date(2025, 12, 1))
        inside[i] = dataclasses.replace(
            inside[i],
            status="I",
            inactive_date=when,
            reason_code="MAIL-CHECK",
            reg_date=min(inside[i].reg_date, when - dt.timedelta(days=400)),
        )
    for _ in range(2):
        i = next(picks)
        inside[i] = dataclasses.replace(
            inside[i],
            status="17",
            dob=_rand_date(rng, dt.date(2009, 1, 1), dt.date(2009, 10, 1)),
            reg_date=_rand_date(rng, dt.date(2026, 1, 5), adopted - dt.timedelta(days=30)),
            last_voted=None,
        )
    for _ in range(n_late):
        i = next(picks)
        inside[i] = dataclasses.replace(
            inside[i],
            reg_date=_rand_date(
                rng, election + dt.timedelta(days=3), adopted - dt.timedelta(days=5)
            ),
            last_voted=None,
        )
    log.debug("register: %d village voters, %d outside", len(inside), len(outside))
    return tuple(inside) + tuple(outside)


# Formal first names and the nicknames people sign with (Bill for William).
NICKNAMES: dict[str, tuple[str, ...]] = {
    "William": ("Bill", "Will"),
    "Robert": ("Bob", "Rob"),
    "Elizabeth": ("Liz", "Beth"),
    "Margaret": ("Peggy", "Maggie"),
    "Katherine": ("Kate", "Kathy"),
    "James": ("Jim", "Jimmy"),
    "Richard": ("Rick", "Dick"),
    "Thomas": ("Tom",),
    "Joseph": ("Joe",),
    "Patricia": ("Pat", "Patty"),
}


def vary_register(
    rng: random.Random, voters: tuple[Voter, ...], village: Village
) -> tuple[Voter, ...]:
    """The register with some village voters renamed: about one in ten given a formal first
    name that has a common nickname (William, who signs as Bill), about one in twenty a
    hyphenated surname ("Rookwood-Fernsby"). Names stay unique on the register."""
    out = list(voters)
    taken = {(v.first_name, v.last_name) for v in out}
    inside = [i for i, v in enumerate(out) if v.ed in village.village_eds and not v.suffix]
    rng.shuffle(inside)
    n_formal = max(3, len(inside) // 10)
    n_hyphen = max(2, len(inside) // 20)
    for i in inside[:n_formal]:
        v = out[i]
        for _ in range(20):
            first = rng.choice(sorted(NICKNAMES))
            if (first, v.last_name) not in taken:
                taken.add((first, v.last_name))
                out[i] = dataclasses.replace(v, first_name=first)
                break
    for i in inside[n_formal : n_formal + n_hyphen]:
        v = out[i]
        for _ in range(20):
            other = rng.choice(SURNAMES)
            last = f"{v.last_name}-{other}"
            if other != v.last_name and (v.first_name, last) not in taken:
                taken.add((v.first_name, last))
                out[i] = dataclasses.replace(v, last_name=last)
                break
    return tuple(out)


def unregistered_signer(
    rng: random.Random, registered: Collection[tuple[str, str]], village: Village
) -> tuple[str, str, str]:
    """An invented signer who is not on the register (no (first, last) pair of `registered`),
    living on one of the village's streets: (name, residence, election district)."""
    while True:
        first = rng.choice(FIRST_NAMES)
        last = rng.choice(UNREGISTERED_SURNAMES)
        if (first, last) not in registered:
            break
    street = rng.choice(VILLAGE_STREETS)
    ed = village.street_ed(street)
    return f"{first} {last}", f"{rng.randint(200, 260)} {street}", ed
