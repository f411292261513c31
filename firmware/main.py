"""Pico entry point: wires real pins to board_logic and talks over USB serial (stdin/stdout).

Copy ``main.py`` and ``board_logic.py`` to the Pico (see docs/button-boards.md). Pin numbers are
the Pico's GP numbers; change the two tables below if you wire differently. ``serve`` takes its
I/O as arguments, so tests run it with fakes on CPython and on MicroPython.
"""

import time

import board_logic

# name -> GP pin; each button between the pin and GND (internal pull-up)
BUTTONS = (("1", 2), ("2", 3), ("3", 4), ("4", 5), ("5", 6), ("6", 7), ("undo", 8), ("next", 9))
# expedition -> GP pin; each LED through its resistor to GND
LEDS = (("independent", 10), ("japanese", 11), ("british", 12), ("american", 13))


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


def main():
    import select
    import sys

    import machine

    buttons = [(n, machine.Pin(gp, machine.Pin.IN, machine.Pin.PULL_UP)) for n, gp in BUTTONS]
    leds = [(n, machine.Pin(gp, machine.Pin.OUT, value=0)) for n, gp in LEDS]
    seed = time.ticks_us() ^ int.from_bytes(machine.unique_id()[-2:], "big")
    boot_id = "%04x" % (seed & 0xFFFF)  # differs between boots: the host tells a reboot from a reconnect
    board = board_logic.Board(buttons, leds, sys.stdout.write, boot_id, time.ticks_ms())
    poll = select.poll()
    poll.register(sys.stdin, select.POLLIN)
    stdin = sys.stdin.buffer
    serve(board, lambda: poll.poll(0), lambda: stdin.read(1), time.ticks_ms, time.sleep_ms)


if __name__ == "__main__":
    main()
