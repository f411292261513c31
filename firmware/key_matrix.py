"""A scanned key matrix for the Pico board: 1-12, the water symbol, Undo and Next on 8 pins.

Runs on the Pico (MicroPython) and on CPython (tests, the simulated board), like board_logic:
it touches hardware only through pins handed in.

* a *row* pin has ``value(v)``: 0 pulls the row low, 1 lets it go (``machine.Pin`` in
  ``OPEN_DRAIN`` mode, so two rows are never driven against each other through two keys);
* a *column* pin has ``value()`` -> 0 or 1, with a pull-up: 0 means a closed key joins it to the
  row being pulled low.

``scan()`` pulls each row low in turn and reads every column. Each key's last reading is offered
as a pin (``keys``) that ``board_logic.Board`` reads like an arcade button's, so the same
debounce, numbering and resending serve both layouts.

Ghosting. Without a diode per key, three closed keys on the corners of a rectangle make the
fourth corner read closed too (current runs backwards through the other three). A matrix with
diodes (hardware/button-board.md) has no such phantom, but a cheap membrane keypad has no diodes,
so the scan guards anyway: whenever the closed readings form a rectangle, the four keys on its
corners keep the state they had before -- an ambiguous scan never makes a press. With diodes the
only cost is that a fourth real key on such a rectangle waits until one of the others is let go.
"""

# The 4x4 layout, as printed on a phone-style 4x4 keypad (relabel A-D and * 0 #):
#   1  2  3  water        (A)
#   4  5  6  undo         (B)
#   7  8  9  next         (C)
#   10 11 12 (spare)      (* 0 # D)
KEYPAD_4X4 = (("1", "2", "3", "water"), ("4", "5", "6", "undo"), ("7", "8", "9", "next"),
              ("10", "11", "12", None))


class KeyPin:
    """One key of the matrix as an input pin: ``value()`` is 0 while the last scan saw it closed."""

    def __init__(self):
        self.closed = False

    def value(self):
        return 0 if self.closed else 1


class KeyMatrix:
    """Rows pulled low one at a time, columns read; ``keymap[row][col]`` names each key (None: no key).

    A scan allocates nothing in the usual case (at most a rectangle check while four or more keys
    are held), so the 1 ms loop on the Pico is not interrupted by garbage collection.
    """

    def __init__(self, rows, cols, keymap=KEYPAD_4X4):
        if len(keymap) != len(rows) or any(len(line) != len(cols) for line in keymap):
            raise ValueError("keymap must have one name (or None) per row and column")
        self.rows, self.cols, self.keymap = rows, cols, keymap
        self.grid = [[KeyPin() for _ in cols] for _ in rows]
        self.keys = [(keymap[r][c], self.grid[r][c]) for r in range(len(rows)) for c in range(len(cols))
                     if keymap[r][c] is not None]
        self.reading = [[False] * len(cols) for _ in rows]  # the last raw reading, reused
        self.counters = {"ambiguous": 0}  # scans in which a rectangle of closed keys froze some keys
        for row in rows:
            row.value(1)

    def read(self):
        """The raw reading: ``closed[row][col]``, one row pulled low at a time (a list reused by
        the next read)."""
        for r in range(len(self.rows)):
            row, line = self.rows[r], self.reading[r]
            row.value(0)
            # no explicit settling delay: the pull-up charges a column's few pF in well under a
            # microsecond, less than the interpreter takes to reach the next line
            for c in range(len(self.cols)):
                line[c] = self.cols[c].value() == 0
            row.value(1)
        return self.reading

    def scan(self):
        closed = self.read()
        busy = 0  # rows with two or more keys closed: a rectangle needs two of them
        for line in closed:
            if sum(line) >= 2:
                busy += 1
        frozen = ambiguous_keys(closed) if busy >= 2 else None
        if frozen:
            self.counters["ambiguous"] += 1
        for r in range(len(self.grid)):
            line, keys = closed[r], self.grid[r]
            for c in range(len(keys)):
                if not frozen or (r, c) not in frozen:
                    keys[c].closed = line[c]


def ambiguous_keys(closed):
    """The ``(row, col)`` of every key on a corner of a rectangle of closed readings: any one of
    the four could be a phantom of the other three, so none of them can be trusted."""
    found = set()
    busy = [r for r in range(len(closed)) if sum(closed[r]) >= 2]  # only such rows can form one
    for i in range(len(busy)):
        r1 = busy[i]
        for r2 in busy[i + 1:]:
            shared = [c for c in range(len(closed[r1])) if closed[r1][c] and closed[r2][c]]
            if len(shared) >= 2:
                for c in shared:
                    found.add((r1, c))
                    found.add((r2, c))
    return found


class FakeMatrix:
    """The wiring of a key matrix for tests and the simulated board: rows, columns and switches,
    with or without a diode per key, so phantom keys appear exactly as on a real diode-less pad.

    What joins what is worked out when a switch moves, not on every read, so reading allocates
    nothing (MicroPython under wasmtime, where the tests run it, has a small heap).
    """

    def __init__(self, n_rows, n_cols, diodes=True):
        self.diodes = diodes
        self.n_rows, self.n_cols = n_rows, n_cols
        self.closed = set()  # (row, col) of the switches held down
        self.low = [False] * n_rows  # rows being pulled low
        self.on = [False] * (n_rows * n_cols)  # the closed switches again, flat, for reading
        self.group = list(range(n_rows + n_cols))  # rows, then columns: equal numbers are joined
        self.rows = [_RowPin(self, r) for r in range(n_rows)]
        self.cols = [_ColumnPin(self, c) for c in range(n_cols)]

    def switch(self, r, c):
        """A switch with ``press()``/``release()``, like board_logic.FakePin."""
        return _Switch(self, r, c)

    def moved(self):
        """Join rows and columns through the closed switches: with a diode per key each switch
        joins only its own row and column (for current from the column); without, current runs
        backwards too, so everything reachable through closed switches is joined."""
        group = self.group
        for i in range(len(group)):
            group[i] = i
        for i in range(len(self.on)):
            self.on[i] = (i // self.n_cols, i % self.n_cols) in self.closed
        if self.diodes:
            return
        changed = True
        while changed:  # merge until stable: a few passes on a 4x4 matrix
            changed = False
            for r, c in self.closed:
                a, b = group[r], group[self.n_rows + c]
                if a != b:
                    low, high = min(a, b), max(a, b)
                    for i in range(len(group)):
                        if group[i] == high:
                            group[i] = low
                    changed = True

    def level(self, col):
        """What the column reads: 0 if a closed switch (or, without diodes, a path of them) joins
        it to a row being pulled low."""
        for r in range(self.n_rows):
            if not self.low[r]:
                continue
            if self.diodes:
                if self.on[r * self.n_cols + col]:
                    return 0
            elif self.group[r] == self.group[self.n_rows + col]:
                return 0
        return 1


class _RowPin:
    def __init__(self, matrix, r):
        self.matrix, self.r = matrix, r

    def value(self, v=None):
        if v is None:
            return 0 if self.matrix.low[self.r] else 1
        self.matrix.low[self.r] = not v


class _ColumnPin:
    def __init__(self, matrix, c):
        self.matrix, self.c = matrix, c

    def value(self, v=None):
        return self.matrix.level(self.c)


class _Switch:
    def __init__(self, matrix, r, c):
        self.matrix, self.at = matrix, (r, c)

    def press(self):
        self.matrix.closed.add(self.at)
        self.matrix.moved()

    def release(self):
        self.matrix.closed.discard(self.at)
        self.matrix.moved()

    def value(self, v=None):
        return 0 if self.at in self.matrix.closed else 1
