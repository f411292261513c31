"""``demo --inputs gpio-sim,serial-matrix-sim``: which simulated boards the demo runs, as config.

Kept here, beside the twins, so the command line only passes the words through.

    >>> demo_input_config("gpio-sim, serial-matrix-sim")
    {'gpio_board': True, 'gpio_pin_factory': 'simulated', 'serial_board': 'simulated-matrix'}
"""

from __future__ import annotations

from companion.config import ConfigError

#: word -> the [inputs] keys it sets
DEMO_INPUTS = {
    "gpio-sim": {"gpio_board": True, "gpio_pin_factory": "simulated"},
    "serial-sim": {"serial_board": "simulated"},
    "serial-matrix-sim": {"serial_board": "simulated-matrix"},
}


def demo_input_config(words: str) -> dict:
    """The ``Config`` keyword arguments for a comma-separated list of DEMO_INPUTS words."""
    config: dict = {}
    for word in (w.strip() for w in words.split(",")):
        if not word:
            continue
        if word not in DEMO_INPUTS:
            raise ConfigError(f"--inputs: unknown {word!r}; choose from {', '.join(DEMO_INPUTS)}")
        if "serial_board" in DEMO_INPUTS[word] and "serial_board" in config:
            raise ConfigError("--inputs: one serial twin at a time (serial-sim or serial-matrix-sim)")
        config.update(DEMO_INPUTS[word])
    return config
