"""The camera dice source: its state machine on rendered frame sequences, and camera faults."""

from __future__ import annotations

import time

import numpy as np
import pytest

from companion.inputs.base import InputEvent
from companion.inputs.camera_dice import AT_REST, EMPTY, READ, ROLLING, CameraDice
from companion.inputs.camera_source import CameraError, CameraSource, SimulatedCamera, open_camera
from companion.vision.dice_sim import throw_frames


def feed(source: CameraDice, frames) -> list[tuple[int, InputEvent]]:
    """Feed frames; return (frame index, event) for each event emitted."""
    got = []
    for i, f in enumerate(frames):
        for e in source.process_frame(f.image):
            got.append((i, e))
    return got


@pytest.fixture(scope="module")
def throws():
    """A few rendered throws (rendered once for the module: rendering is the slow part)."""
    return {seed: throw_frames(seed, nudge=True) for seed in (1, 2, 3, 4)}


def test_one_event_per_throw_only_after_rest(throws):
    for seed, frames in throws.items():
        source = CameraDice(SimulatedCamera([]))
        events = feed(source, frames)
        assert len(events) == 1, (seed, events, source.health.last_error)
        index, event = events[0]
        assert event.kind == "throw" and event.source == "camera"
        assert event.value == frames[index].values[0]
        first_rest = next(i for i, f in enumerate(frames) if f.phase == "rest")
        assert frames[index].phase == "rest"
        assert index - first_rest <= 2  # reported within 3 frames of the dice coming to rest
        assert source.state == EMPTY  # picked up at the end
        assert source.health.last_event == f"throw {event.value}"


def test_nudge_and_hand_report_nothing_more(throws):
    frames = throws[2]
    source = CameraDice(SimulatedCamera([]))
    events = feed(source, frames)
    phases = [frames[i].phase for i, _ in events]
    assert phases == ["rest"]
    assert any(f.phase == "nudged" for f in frames) and any(f.phase == "hand" for f in frames)


def test_picked_up_and_thrown_again_reports_again(throws):
    source = CameraDice(SimulatedCamera([]))
    first = feed(source, throws[3])
    second = feed(source, throws[4])
    assert len(first) == 1 and len(second) == 1
    assert second[0][1].value == throws[4][second[0][0]].values[0]


def test_thrown_again_without_picking_up(throws):
    a = throw_frames(11, values=[2], pick_up=False, surface="felt_green", style="white")
    b = throw_frames(11, values=[6], pick_up=False, surface="felt_green", style="white", empty=0)
    source = CameraDice(SimulatedCamera([]))
    assert [e.value for _, e in feed(source, a)] == [2]
    assert source.state == READ
    assert [e.value for _, e in feed(source, b)] == [6]


def test_states_in_order(throws):
    source = CameraDice(SimulatedCamera([]))
    seen = []
    for f in throws[1]:
        source.process_frame(f.image)
        if not seen or seen[-1] != source.state:
            seen.append(source.state)
    # the first frame counts as motion (nothing to compare with); the empty tray is read at rest
    assert seen[:3] == [ROLLING, AT_REST, EMPTY]
    assert READ in seen and seen[-1] == EMPTY
    # the dice are read over the still frames (at_rest), then reported (read)
    first_read = seen.index(READ)
    assert seen[first_read - 2:first_read] == [ROLLING, AT_REST]


def test_two_dice_when_one_is_expected_reports_no_throw():
    frames = throw_frames(5, values=[3, 4], style="white", surface="wood_light")
    source = CameraDice(SimulatedCamera([]), expected_dice=1)
    assert feed(source, frames) == []
    assert "2 dice" in source.health.last_error
    any_count = CameraDice(SimulatedCamera([]), expected_dice=0)
    assert sorted(e.value for _, e in feed(any_count, frames)) == [3, 4]


def test_tray_region_ignores_motion_outside_it():
    frames = throw_frames(6, values=[5], style="red", surface="felt_green", pick_up=False)
    h, w = frames[0].image.shape[:2]
    source = CameraDice(SimulatedCamera([]), tray=(0.0, 0.0, 1.0, 1.0))
    assert [e.value for _, e in feed(source, frames)] == [5]
    # a hand waving in a corner outside a tray that is the other corner: no motion seen
    corner = CameraDice(SimulatedCamera([]), tray=(0.0, 0.0, 0.3, 0.3))
    still = frames[0].image
    for k in range(6):
        img = still.copy()
        img[int(0.6 * h):, int(0.6 * w):] = (k * 40) % 255
        corner.process_frame(img)
    assert corner.state in (EMPTY, ROLLING) and corner.reads <= 1


def test_bad_frames_and_a_crashing_reader_never_raise():
    source = CameraDice(SimulatedCamera([]))
    assert source.process_frame(None) == []
    assert source.process_frame(np.zeros((4, 4), np.uint8)) == []
    assert source.health.details["bad_frames"] == 2

    def broken(_):
        raise RuntimeError("boom")

    source = CameraDice(SimulatedCamera([]), reader=broken)
    frames = throw_frames(7, values=[1])
    assert feed(source, frames) == []
    assert "boom" in source.health.last_error
    with pytest.raises(ValueError):
        CameraDice(SimulatedCamera([]), tray=(0.5, 0.5, 0, 1))


class FlakyCamera(CameraSource):
    """Frames from a list, then its last frame for ever; can be unplugged (reads raise) and back."""

    def __init__(self, frames):
        self.frames, self.i, self.plugged = frames, 0, True

    def read(self):
        if not self.plugged:
            raise CameraError("usb camera: device disconnected")
        frame = self.frames[min(self.i, len(self.frames) - 1)]
        self.i += 1
        return frame


def wait_for(cond, timeout=10.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.01)
    return False


def test_camera_unplugged_mid_game_and_back():
    frames = [f.image for f in throw_frames(8, values=[4], pick_up=False, style="white", surface="felt_blue")]
    cam = FlakyCamera(frames[:1])  # the empty tray, again and again
    got: list[InputEvent] = []
    source = CameraDice(cam, fps=200, stale_after_s=0.05)
    source.start(got.append)
    try:
        assert wait_for(lambda: source.health.connected and source.frames > 3)
        cam.plugged = False
        assert wait_for(lambda: not source.health.connected)
        assert "disconnected" in source.health.last_error
        assert source.health.details["camera_errors"] >= 1
        cam.frames, cam.i = frames, 0  # back, and a throw happens
        cam.plugged = True
        assert wait_for(lambda: source.health.connected)
        assert wait_for(lambda: len(got) >= 1)
        assert [e.value for e in got] == [4]
        time.sleep(0.3)  # the dice stay at rest: reported once
        assert len(got) == 1
    finally:
        source.close()
    assert not source.health.connected
    assert source.health.as_dict()["details"]["state"] in (EMPTY, ROLLING, READ)


def test_simulated_camera_and_open_camera():
    cam = SimulatedCamera([np.zeros((2, 2, 3), np.uint8)])
    assert cam.read().shape == (2, 2, 3)
    with pytest.raises(CameraError):
        cam.read()
    loop = SimulatedCamera([np.zeros((2, 2, 3), np.uint8)], loop=True)
    loop.unplug()
    with pytest.raises(CameraError):
        loop.read()
    loop.replug()
    assert loop.read() is not None and loop.read() is not None
    sim = open_camera("sim", (320, 240))
    assert sim.read().shape == (240, 320, 3)
    assert open_camera("3").describe() == "opencv:3"
    with pytest.raises(CameraError):
        open_camera("/no/such/video.mp4").open()
