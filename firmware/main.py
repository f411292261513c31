"""Pico entry point: wires real pins to board_logic and talks over USB serial (stdin/stdout).

Copy ``main.py`` and ``board_logic.py`` to the Pico (see docs/button-boards.md). Pin numbers are
the Pico's GP numbers; change the two tables below if you wire differently.
"""

import select
import sys
import time

import machine

import board_logic

# name -> GP pin; each button between the pin and GND (internal pull-up)
BUTTONS = (("1", 2), ("2", 3), ("3", 4), ("4", 5), ("5", 6), ("6", 7), ("undo", 8), ("next", 9))
# expedition -> GP pin; each LED through a 330 ohm resistor to GND
LEDS = (("independent", 10), ("japanese", 11), ("british", 12), ("american", 13))


def boot_id():
    """Four hex digits that differ between boots, so the host can tell a reboot from a reconnect."""
    seed = time.ticks_us() ^ int.from_bytes(machine.unique_id()[-2:], "big")
    return "%04x" % (seed & 0xFFFF)


def main():
    buttons = [(n, machine.Pin(gp, machine.Pin.IN, machine.Pin.PULL_UP)) for n, gp in BUTTONS]
    leds = [(n, machine.Pin(gp, machine.Pin.OUT, value=0)) for n, gp in LEDS]
    out = sys.stdout
    board = board_logic.Board(buttons, leds, out.write, boot_id(), time.ticks_ms())
    stdin = sys.stdin.buffer
    poll = select.poll()
    poll.register(sys.stdin, select.POLLIN)
    last_interrupt = None
    while True:
        try:
            while poll.poll(0):
                board.feed(stdin.read(1), time.ticks_ms())
            board.tick(time.ticks_ms())
            time.sleep_ms(1)
        except KeyboardInterrupt:
            # A stray Ctrl-C byte in line noise must not stop the board; two within a second
            # (what mpremote and Thonny send) hand the Pico back to the REPL for flashing.
            now = time.ticks_ms()
            if last_interrupt is not None and time.ticks_diff(now, last_interrupt) < 1000:
                raise
            last_interrupt = now


main()
