"""Pico entry point: wires real pins to board_logic and talks over USB serial (stdin/stdout).

Copy ``main.py``, ``board_logic.py`` and ``key_matrix.py`` to the Pico (see docs/button-boards.md).
Pin numbers are the Pico's GP numbers; change the tables below if you wire differently, and
``LAYOUT`` to the board you built. ``serve`` takes its I/O as arguments, so tests run it with
fakes on CPython and on MicroPython.
"""

import time

import board_logic

# "buttons": one arcade button per pin (BUTTONS, Nessie Hunt's 1-6, Undo, Next);
# "matrix": the 4x4 key matrix (1-12, the water symbol, Undo, Next; MATRIX_*), same LEDs
LAYOUT = "buttons"

# name -> GP pin; each button between the pin and GND (internal pull-up)
BUTTONS = (("1", 2), ("2", 3), ("3", 4), ("4", 5), ("5", 6), ("6", 7), ("undo", 8), ("next", 9))
# expedition -> GP pin; each LED through its resistor to GND
LEDS = (("independent", 10), ("japanese", 11), ("british", 12), ("american", 13))
# the key matrix: rows pulled low in turn (open drain), columns read with pull-ups; the keys'
# names by row and column are key_matrix.KEYPAD_4X4 (hardware/button-board.md has the wiring)
MATRIX_ROWS = (2, 3, 4, 5)
MATRIX_COLS = (6, 7, 8, 9)


def serve(board, ready, read, ticks_ms, sleep_ms, loops=-1):
    """Feed what arrives to the board and tick it every millisecond, ``loops`` times (-1: forever).

    ``ready()`` is true while a byte waits, ``read()`` returns it. A stray Ctrl-C (KeyboardInterrupt)
    in line noise must not stop the board; two within a second (what mpremote and Thonny send)
    end ``serve`` so the Pico falls back to the REPL for flashing.
    """
    last_interrupt = None
    while loops != 0:
        loops -= 1
        try:
            while ready():
                board.feed(read(), ticks_ms())
            board.tick(ticks_ms())
            sleep_ms(1)
        except KeyboardInterrupt:
            now = ticks_ms()
            if last_interrupt is not None and board_logic.ticks_diff(now, last_interrupt) < 1000:
                raise
            last_interrupt = now


def make_inputs(Pin, layout=None):
    """``(buttons, leds, scan)`` for ``layout`` (default LAYOUT) on ``machine.Pin`` (or a fake of it)."""
    layout = layout or LAYOUT
    leds = [(n, Pin(gp, Pin.OUT, value=0)) for n, gp in LEDS]
    if layout == "matrix":
        import key_matrix

        rows = [Pin(gp, Pin.OPEN_DRAIN, value=1) for gp in MATRIX_ROWS]  # value(0) pulls low, 1 lets go
        cols = [Pin(gp, Pin.IN, Pin.PULL_UP) for gp in MATRIX_COLS]
        matrix = key_matrix.KeyMatrix(rows, cols, key_matrix.KEYPAD_4X4)
        return matrix.keys, leds, matrix.scan
    if layout != "buttons":
        raise ValueError("LAYOUT must be 'buttons' or 'matrix', not " + str(layout))
    return [(n, Pin(gp, Pin.IN, Pin.PULL_UP)) for n, gp in BUTTONS], leds, None


def main():
    import select
    import sys

    import machine

    buttons, leds, scan = make_inputs(machine.Pin)
    seed = time.ticks_us() ^ int.from_bytes(machine.unique_id()[-2:], "big")
    boot_id = "%04x" % (seed & 0xFFFF)  # differs between boots: the host tells a reboot from a reconnect
    board = board_logic.Board(buttons, leds, sys.stdout.write, boot_id, time.ticks_ms(), scan=scan)
    poll = select.poll()
    poll.register(sys.stdin, select.POLLIN)
    stdin = sys.stdin.buffer
    serve(board, lambda: poll.poll(0), lambda: stdin.read(1), time.ticks_ms, time.sleep_ms)


if __name__ == "__main__":
    main()
