"""Money and equipment: the Sponsor's bank, income and running costs, loans, buying and returning.

Pure functions of the state. Money only ever moves between an expedition and the bank, so
``sum(cash) + bank == 0`` holds in every state (a property test checks it).
"""

from __future__ import annotations


from .box import BoxProfile
from .state import replace, SURFACE_ONLY, UNDERWATER_EQUIPMENT, Expedition, Loan, NessieState, Piece
from .variants import Variant

LOAN_ROUNDS = 4  # "must be repaid within four rounds (turns)"


def title(name: str) -> str:
    return name.upper()


def running_cost(box: BoxProfile, e: Expedition) -> int:
    return sum(box.equipment[p.equipment].running_cost for p in e.pieces)


def move_money(s: NessieState, e: Expedition, amount: int) -> NessieState:
    """The expedition receives ``amount`` from the bank (negative: pays it)."""
    return replace(s.with_expedition(e, cash=e.cash + amount), bank=s.bank - amount)


def charge(s: NessieState, name: str, amount: int, why: str) -> tuple[NessieState, list[str]]:
    """An expedition pays a debt to the Sponsor; what it cannot meet it borrows from the Sponsor.

    "Any amount can be borrowed from the Sponsor to pay debts that players are unable to meet. The
    money plus 50% interest must be repaid within four rounds (turns)."
    """
    e = s.expedition(name)
    notes = []
    if amount <= e.cash:
        return move_money(s, e, -amount), notes
    shortfall = amount - e.cash
    owed = shortfall + (shortfall + 1) // 2  # 50% interest, rounded up to a whole pound
    loan = Loan("sponsor", owed, s.round + LOAN_ROUNDS, shortfall)
    s = move_money(s, e, -e.cash)
    e = s.expedition(name)
    s = s.with_expedition(e, loans=e.loans + (loan,))
    notes.append(f"{title(name)} cannot meet £{amount} ({why}) and borrows £{shortfall} from the Sponsor: "
                 f"£{owed} to repay by the end of round {loan.due_round}; no evidence until it is repaid.")
    return s, notes


def stage_five(s: NessieState, box: BoxProfile, variant: Variant) -> tuple[NessieState, list[str]]:
    """Income minus running costs for every expedition in the game, missing a turn or not.

    "Each player is due £150 income. The Sponsor subtracts the equipment running costs ... The first
    time this stage of the game is reached there will be no running costs involved."
    """
    first = s.incomes == 0
    s = replace(s, incomes=s.incomes + 1)
    notes: list[str] = []
    for name in s.playing:
        e = s.expedition(name)
        income = variant.income if (variant.income_first_time or not first) else 0
        costs = 0 if (first or not variant.running_costs) else running_cost(box, e)
        net = income - costs
        if net >= 0:
            s = move_money(s, e, net)
            if income or costs:
                notes.append(f"{title(name)}: £{income} income - £{costs} running costs = £{net} paid out.")
        else:
            s, more = charge(s, name, -net, f"running costs £{costs} over income £{income}")
            notes.append(f"{title(name)}: running costs £{costs} exceed the £{income} income: pays £{-net}.")
            notes.extend(more)
        # A Bank Loan card falls due here: a term loan, repaid from cash (or with a Sponsor loan).
        e = s.expedition(name)
        for loan in e.loans:
            if loan.kind == "bank" and loan.due_round <= s.round:
                e = s.expedition(name)
                s = s.with_expedition(e, loans=tuple(l for l in e.loans if l is not loan))
                s, more = charge(s, name, loan.owed, "the Bank Loan falls due")
                notes.append(f"{title(name)} repays the Bank Loan: £{loan.owed}.")
                notes.extend(more)
    return s, notes


def repay(s: NessieState, name: str, amount: int) -> NessieState:
    """Repay Sponsor loans, oldest first (the caller has checked the amount)."""
    e = s.expedition(name)
    s = move_money(s, e, -amount)
    e = s.expedition(name)
    loans, left = [], amount
    for loan in e.loans:
        if loan.kind == "sponsor" and left > 0:
            paid = min(left, loan.owed)
            left -= paid
            if loan.owed - paid > 0:
                loans.append(replace(loan, owed=loan.owed - paid))
        else:
            loans.append(loan)
    return s.with_expedition(e, loans=tuple(loans))


def why_not_repay(s: NessieState, name: str, amount: int) -> str | None:
    e = s.expedition(name)
    debt = e.sponsor_debt
    if debt == 0:
        return f"{title(name)} owes the Sponsor nothing"
    if amount > debt:
        return f"{title(name)} owes the Sponsor only £{debt}"
    if amount > e.cash:
        return f"{title(name)} has only £{e.cash}"
    return None


def stock_left(s: NessieState, box: BoxProfile, name: str, equipment: str) -> int:
    """Transparencies of this type left in the expedition's colour ("each colour's stock")."""
    return box.equipment[equipment].per_colour - s.expedition(name).count(equipment)


def why_not_buy(s: NessieState, box: BoxProfile, variant: Variant, name: str, equipment: str,
                hex: str | None = None) -> tuple[str, str] | None:
    """Why ``name`` may not buy ``equipment`` now: (reason, rule), or None when it may."""
    e = s.expedition(name)
    kind = box.equipment.get(equipment)
    if kind is None:
        return f"there is no equipment called {equipment!r}", "Summary Cards"
    label = kind.label.lower()
    if not variant.purchases:
        return "no equipment is purchased in this game", "Junior Rules"
    if not variant.eye_witness_sheets and equipment == "eye_witness":
        return "eye-witness transparencies are not used in the introductory game", "Special Introductory Rules"
    if e.missing_turns:
        return f"{title(name)} is missing a turn and cannot buy equipment", "Stage Six: YOU CANNOT BUY EQUIPMENT WHILE MISSING A TURN"
    if s.bought:
        return f"{title(name)} has already bought a piece this turn", "Stage Six, step 1: You CANNOT buy more than ONE piece of equipment in any turn"
    if equipment in UNDERWATER_EQUIPMENT and e.count("surface_camera") < 3 and not (variant.cameras_once and e.had_all_cameras):
        return (f"{title(name)} cannot buy a {label} yet: all three surface cameras must be in use first",
                "Stage Six, step 1: No player can buy underwater equipment until they have ALL THREE surface cameras positioned")
    if stock_left(s, box, name, equipment) <= 0:
        return f"{title(name)} has no {label} transparency left in its colour", "Components: the transparencies of each colour"
    for returned, when in e.returned:
        if returned == equipment and s.round - when < variant.repurchase_gap:
            return (f"{title(name)} returned a {label} in round {when} and may buy one again from round {when + variant.repurchase_gap}",
                    "Stage Six, step 3: Equipment may NOT be re-purchased after being returned during the following round")
    if kind.price > e.cash:
        return f"a {label} costs £{kind.price} and {title(name)} has £{e.cash}", "Stage Six, step 2: Pay the Sponsor the purchase price"
    if equipment == "cage":
        if hex is None:
            return "say which hexagon the cage occupies", "Stage Six, step 4: Cages may only occupy ONE HEXAGON"
        if hex not in box.loch:
            return f"{hex!r} is not a loch hexagon", "Stage Six, step 4: Cages may only occupy ONE HEXAGON"
    elif hex is not None:
        return "only a cage is placed on one hexagon", "Stage Six, step 4"
    return None


def buy(s: NessieState, box: BoxProfile, name: str, equipment: str, hex: str | None) -> NessieState:
    e = s.expedition(name)
    s = move_money(s, e, -box.equipment[equipment].price)
    e = s.expedition(name)
    piece = Piece(s.next_piece, equipment, s.round, hex)
    cameras = e.had_all_cameras or (equipment == "surface_camera" and e.count("surface_camera") == 2)
    s = s.with_expedition(e, pieces=e.pieces + (piece,), had_all_cameras=cameras)
    return replace(s, next_piece=s.next_piece + 1, bought=True)


def why_not_return(s: NessieState, box: BoxProfile, name: str, piece_id: int) -> tuple[str, str] | None:
    e = s.expedition(name)
    piece = e.piece(piece_id)
    if piece is None:
        return f"{title(name)} has no piece number {piece_id} in use", "Stage Six, step 3"
    label = box.equipment[piece.equipment].label.lower()
    if piece.equipment in ("cage", "eye_witness"):
        return (f"the {label} must never be removed once in position",
                "Stage Six, step 3: except the cage and eye-witnesses which, once in position, must never be removed")
    if piece.equipment == "surface_camera" and any(p.equipment in UNDERWATER_EQUIPMENT - {"cage"} for p in e.pieces):
        return (f"{title(name)} cannot return a surface camera while underwater equipment other than the cage is in use",
                "Stage Six, step 3: Surface cameras cannot be returned until all that player's underwater equipment (except the cage) has been returned")
    return None


def take_back(s: NessieState, name: str, piece_id: int) -> NessieState:
    """The piece leaves the board and goes back to the expedition's stock; no refund."""
    e = s.expedition(name)
    piece = e.piece(piece_id)
    return s.with_expedition(e, pieces=tuple(p for p in e.pieces if p.id != piece_id),
                             returned=e.returned + ((piece.equipment, s.round),))


def sees(equipment: str, monster: str) -> bool:
    """"EYE WITNESSES AND SURFACE CAMERAS CAN ONLY 'SEE' THE (surface) HEAD AND NECK MONSTER"."""
    return monster == "surface" or equipment not in SURFACE_ONLY
