"""The camera dice source: its state machine on rendered frame sequences, and camera faults."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

from companion.inputs.base import InputEvent
from companion.inputs.camera_dice import AT_REST, EMPTY, READ, ROLLING, CameraDice
from companion.inputs.camera_source import CameraError, CameraSource, SimulatedCamera, open_camera
from companion.sliced_work import SlicedWork
from companion.vision.dice import foreground_mask
from companion.vision.dice_sim import draw_hand, throw_frames
from companion.vision.tray_reader import DIFF_LEVEL, TrayView, changes, guess_empty
from companion.vision import tray_rest_read
from companion.vision.tray_rest_read import RestRead
from companion.vision.tray_sim import tray_stream


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


def unlimited(**kw) -> CameraDice:
    """A source whose reads always end in the frame they start in: the frame counts of the state
    machine, whatever this machine's speed (the reads' CPU budget is the bench's business)."""
    return CameraDice(SimulatedCamera([]), frame_budget_ms=None, **kw)


def test_one_event_per_throw_only_after_rest(throws):
    for seed, frames in throws.items():
        source = unlimited()
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
    source = unlimited()
    events = feed(source, frames)
    phases = [frames[i].phase for i, _ in events]
    assert phases == ["rest"]
    assert any(f.phase == "nudged" for f in frames) and any(f.phase == "hand" for f in frames)


def test_picked_up_and_thrown_again_reports_again(throws):
    source = unlimited()
    first = feed(source, throws[3])
    second = feed(source, throws[4])
    assert len(first) == 1 and len(second) == 1
    assert second[0][1].value == throws[4][second[0][0]].values[0]


def test_thrown_again_without_picking_up(throws):
    a = throw_frames(11, values=[2], pick_up=False, surface="felt_green", style="white")
    b = throw_frames(11, values=[6], pick_up=False, surface="felt_green", style="white", empty=0)
    source = unlimited()
    assert [e.value for _, e in feed(source, a)] == [2]
    assert source.state == READ
    assert [e.value for _, e in feed(source, b)] == [6]


def test_states_in_order(throws):
    source = unlimited()
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
    source = unlimited(expected_dice=1)
    assert feed(source, frames) == []
    assert "2 dice" in source.health.last_error
    any_count = unlimited(expected_dice=0)
    assert sorted(e.value for _, e in feed(any_count, frames)) == [3, 4]


def test_tray_region_ignores_motion_outside_it():
    frames = throw_frames(6, values=[5], style="red", surface="felt_green", pick_up=False)
    h, w = frames[0].image.shape[:2]
    source = unlimited(tray=(0.0, 0.0, 1.0, 1.0))
    assert [e.value for _, e in feed(source, frames)] == [5]
    # a hand waving in a corner outside a tray that is the other corner: no motion seen
    corner = unlimited(tray=(0.0, 0.0, 0.3, 0.3))
    still = frames[0].image
    for k in range(6):
        img = still.copy()
        img[int(0.6 * h):, int(0.6 * w):] = (k * 40) % 255
        corner.process_frame(img)
    assert corner.state in (EMPTY, ROLLING) and corner.reads <= 1


def test_bad_frames_and_a_crashing_reader_never_raise():
    source = unlimited()
    assert source.process_frame(None) == []
    assert source.process_frame(np.zeros((4, 4), np.uint8)) == []
    assert source.health.details["bad_frames"] == 2

    def broken(_):
        raise RuntimeError("boom")

    # one die where two are expected: the crops are not trusted, the whole-tray reader is asked
    source = unlimited(reader=broken, expected_dice=2)
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


# ---------------------------------------------------------------- whole sessions (tray_stream)

def session(source: CameraDice, frames) -> list[list[tuple[int, int]]]:
    """Feed a session; per throw (from the frame its dice came to rest to the next such frame),
    the (frames after coming to rest, value) of each event. Events before the first throw fail."""
    settled = [i for i, f in enumerate(frames) if f.settled]
    per: list[list[tuple[int, int]]] = [[] for _ in settled]
    for i, f in enumerate(frames):
        for e in source.process_frame(f.image):
            assert e.kind == "throw" and e.source == "camera"
            k = sum(1 for s in settled if s <= i) - 1
            assert k >= 0, f"a throw reported at frame {i}, before any dice came to rest ({f.phase})"
            per[k].append((i - settled[k], e.value))
    return per


@pytest.fixture(scope="module")
def sessions():
    """Sessions of three throws each: one die, every surface and die colour the renderer draws at
    random, with flicker, noise, passing hands, nudges, pick-ups and throws from where dice lay."""
    return {seed: tray_stream(seed, throws=3) for seed in range(300, 310)}


def test_sessions_report_each_throw_once_with_its_value(sessions):
    wrong, missed, throws = [], [], 0
    for seed, frames in sessions.items():
        source = unlimited()
        per = session(source, frames)
        truth = [f.values for f in frames if f.settled]
        for k, (events, values) in enumerate(zip(per, truth)):
            throws += 1
            assert len(events) <= 1, (seed, k, events)  # never twice
            if not events:
                missed.append((seed, k, source.health.last_error))
                continue
            after, value = events[0]
            if (value,) != values:
                wrong.append((seed, k, value, values))
            assert after <= 3, (seed, k, after)  # at most 3 frames after the dice came to rest
    assert not wrong  # a misread die is worse than none
    assert len(missed) <= throws // 15, missed  # a die no reader can read: reported in health, not guessed


def test_one_die_is_reported_two_frames_after_it_rests(sessions):
    lags = []
    for frames in sessions.values():
        lags += [e[0][0] for e in session(unlimited(), frames) if e]
    assert lags and max(lags) == 2  # rest_frames=2: rest is confirmed by the 2nd still frame


def test_once_the_tray_was_seen_empty_the_dice_are_read_from_crops(sessions):
    frames = sessions[301]
    source = unlimited()
    session(source, frames)
    d = source.health.details
    assert d["empty_tray"] == "learnt"
    assert d["full_reads"] == 0  # the start: nothing at all stood out in the tray, it was learnt at once
    assert d["crop_reads"] >= 3


def test_started_with_dice_already_in_the_tray_guesses_the_empty_tray_and_says_so():
    frames = tray_stream(7, throws=2, values=[[4], [2]], style="white", surface="felt_green", pick_up="always")
    first_rest = next(i for i, f in enumerate(frames) if f.settled)
    source = unlimited()
    got, states = [], []
    for f in frames[first_rest:]:
        got += [e.value for e in source.process_frame(f.image)]
        states.append(source.health.details["empty_tray"])
    assert got == [4, 2]
    assert "guessed around the dice" in states  # until the dice were picked up
    d = source.health.details
    assert d["empty_tray"] == "learnt" and d["full_reads"] == 0  # learnt when the dice were picked up


def test_started_with_dice_in_the_tray_and_thrown_again_without_picking_up():
    frames = tray_stream(8, throws=3, n_dice=2, values=[[1, 5], [6, 3], [2, 2]], pick_up="never",
                         style="red", surface="wood_light", passing=False, nudge=False)
    first_rest = next(i for i, f in enumerate(frames) if f.settled)
    source = unlimited(expected_dice=2)
    per = session(source, frames[first_rest:])
    assert [sorted(v for _, v in e) for e in per] == [[1, 5], [3, 6], [2, 2]]
    assert max(a for e in per for a, _ in e) <= 3
    assert source.health.details["full_reads"] == 0  # all from crops, against the guessed tray


def test_a_dark_die_seen_first_at_rest_is_not_taken_into_the_guessed_empty_tray(monkeypatch):
    """A dark green die on dark felt when the companion starts: what stands out of it is its pips
    and rims only, which the crops read no die in; the whole tray reads it. Those pips and rims are
    not the tray: taken into the guessed picture, the tray never matched it again once the die was
    picked up, and every read of the empty tray went to the whole-tray reader (development cold
    start 3412: 3 full reads, the guess never replaced). (With ``GUESSED_REGROW`` off: on, the die is
    read from its regrown blob and this path is not taken -- the next test.)"""
    monkeypatch.setattr(tray_rest_read, "GUESSED_REGROW", False)
    frames = tray_stream(3412, throws=2)
    first_rest = next(i for i, f in enumerate(frames) if f.settled)
    source = unlimited()
    got = [e.value for f in frames[first_rest:] for e in source.process_frame(f.image)]
    assert got == [2, 5]
    d = source.health.details
    assert d["empty_tray"] == "learnt"  # learnt when the die was picked up
    assert d["full_reads"] == 1  # the first throw's only: the empty tray is read from crops


@pytest.mark.parametrize("seed, n_dice", [(3410, 5), (3412, 1)])
def test_a_dark_die_on_a_cold_start_is_read_from_its_regrown_blob_not_the_whole_tray(seed, n_dice):
    """Development cold starts 3410 (a blue die on blue felt among five) and 3412 (a dark green die on
    dark felt), seen first at rest: the die's pips and rims stand out from the tray's colours, its body
    not, so the guessed empty tray kept the body and the die's blob is a part of it. Grown over the body
    against the tray around it (``tray_rest_read.GUESSED_REGROW``), one first look reads it; without that
    switch the first throw goes to the whole-tray reader (1 full read; 3412's first throw 11-15 frames at
    the default budget, 3410's 18-45) -- this test fails with ``GUESSED_REGROW = False``."""
    frames = tray_stream(seed, throws=1, n_dice=n_dice)
    first_rest = next(i for i, f in enumerate(frames) if f.settled)
    rest = [f for f in frames[first_rest:] if f.phase == "rest"]
    source = unlimited(expected_dice=n_dice)
    got = [e.value for f in rest[:3] for e in source.process_frame(f.image)]
    assert sorted(got) == sorted(frames[first_rest].values)
    assert source.health.details["full_reads"] == 0 and source.health.details["region_reads"] == 0
    if n_dice == 1:  # at the default budget (8 ms a frame): the first look's few ms, not 60-110 ms of the whole tray
        budgeted = CameraDice(SimulatedCamera([]), expected_dice=1)
        at = [i for i, f in enumerate(rest) if budgeted.process_frame(f.image)]
        assert at and at[0] <= 6, at  # (frames from the first; the rest frames are 5-8)


def test_two_dice_are_reported_within_three_frames():
    for seed in (21, 22, 23):
        frames = tray_stream(seed, throws=2, n_dice=2)
        per = session(unlimited(expected_dice=2), frames)
        truth = [f.values for f in frames if f.settled]
        for events, values in zip(per, truth):
            assert sorted(v for _, v in events) == sorted(values), (seed, per, truth)
            assert max(a for a, _ in events) <= 3


def test_thrown_again_to_the_same_value_a_die_away_is_a_new_throw():
    # no pick-up in between; the second rest is 10.8 mm (0.67 dice) from the first: the dice moved
    # for several frames, so it is a throw, not a nudge (a nudge is a brief touch)
    frames = tray_stream(61, throws=2, values=[[6], [6]], places=[[(0.0, 0.0, 0.3)], [(10.0, 4.0, 0.9)]],
                         pick_up="never", passing=False, nudge=False, style="white", surface="felt_green")
    per = session(unlimited(), frames)
    assert [[v for _, v in e] for e in per] == [[6], [6]]


def test_strong_flicker_and_a_lamp_switched_on_report_nothing_extra():
    frames = tray_stream(31, throws=3, flicker=0.08, noise=4.0, lamp=True, surface="grey_paper", style="red")
    source = unlimited()
    per = session(source, frames)
    assert [len(e) for e in per] == [1, 1, 1]
    assert [e[0][1] for e in per] == [f.values[0] for f in frames if f.settled]


def test_a_hand_passing_over_resting_dice_costs_no_read():
    frames = tray_stream(41, throws=1, passing=True, nudge=False, style="white", surface="wood_light")
    source = unlimited()
    reads_after = {}
    for i, f in enumerate(frames):
        source.process_frame(f.image)
        reads_after[i] = source.health.details["crop_reads"] + source.health.details["full_reads"]
    passing = [i for i, f in enumerate(frames) if f.phase == "passing"]
    if passing:  # the generator drew a passing hand for this seed
        back = next(i for i in range(passing[-1] + 1, len(frames)) if frames[i].phase == "hand")
        assert reads_after[back - 1] == reads_after[passing[0] - 1]
        assert source.state == EMPTY


# ---------------------------------------------------------------- camera faults

def test_blank_and_garbage_frames_at_rest_are_counted_never_thrown():
    frames = tray_stream(51, throws=1, passing=False, nudge=False, style="white", surface="felt_blue")
    rest = [i for i, f in enumerate(frames) if f.phase == "rest"]
    rng = np.random.default_rng(0)
    black = np.zeros_like(frames[0].image)
    noise = rng.integers(0, 256, frames[0].image.shape, dtype=np.uint8)
    # after the throw is reported: black frames, a frame of noise, a half-size frame, wrong dtype
    sequence = [f.image for f in frames[:rest[3]]] + [black] * 3 + [noise] + [frames[rest[3]].image] * 3
    sequence += [frames[rest[3]].image[::2, ::2], frames[rest[3]].image.astype(np.float32)]
    sequence += [frames[rest[3]].image] * 4 + [f.image for f in frames[rest[-1] + 1:]]
    source = unlimited()
    got = [e.value for img in sequence for e in source.process_frame(img)]
    assert got == [frames[rest[0]].values[0]]
    d = source.health.details
    assert d["blank_frames"] == 3 and d["bad_frames"] == 2
    assert source.state == EMPTY and d["empty_tray"] == "learnt"  # one odd frame did not reset it
    assert d["full_reads"] == 0  # the tray was empty at the start; the pick-up was seen against it


def test_an_empty_tray_clipped_white_is_a_picture_not_a_camera_fault():
    """A light tray under a lamp the camera clips to pure white (rendered sessions 2601 and 2850 do it
    for a few frames) is flat but no blank camera: no complaint, no frozen camera however long it
    lasts, and the next throw is read as ever."""
    frames = tray_stream(54, throws=2, pick_up="always", style="red", surface="felt_blue")
    gone = next(i for i, f in enumerate(frames) if f.phase == "gone")
    white = np.full_like(frames[0].image, 255)
    sequence = [f.image for f in frames[:gone + 1]] + [white] * 35 + [f.image for f in frames[gone + 1:]]
    source = unlimited()
    got = [e.value for img in sequence for e in source.process_frame(img)]
    assert got == [f.values[0] for f in frames if f.settled]
    d = source.health.details
    assert source.health.last_error is None and "blank_frames" not in d and "frozen_frames" not in d
    assert d["clipped_white_frames"] == 35


def test_a_new_frame_size_that_stays_is_a_new_camera_mode():
    big = tray_stream(53, throws=1, values=[[3]], style="white", surface="felt_green")
    small = tray_stream(53, throws=1, values=[[5]], style="white", surface="felt_green", size=(320, 240),
                        die_px=24)
    source = unlimited()
    assert [e.value for f in big + small for e in source.process_frame(f.image)] == [3, 5]
    assert source.health.details["bad_frames"] == 2  # the first two frames of the new size


def test_a_frozen_camera_is_reported():
    frame = tray_stream(52, throws=1)[0].image
    source = CameraDice(SimulatedCamera([]), frozen_after=5)
    for _ in range(8):
        assert source.process_frame(frame) == []
    assert "frozen" in source.health.last_error and source.health.details["frozen_frames"] >= 1


# ---------------------------------------------------------------- reads spread over frames

def test_a_read_spread_over_many_frames_reports_each_throw_once_after_rest():
    """A tiny CPU budget per frame: each read is paused and goes on over several frames; the dice
    lie still long enough (each rest frame repeated) for it to end. Same throws, same values."""
    frames = []
    for f in tray_stream(71, throws=3, passing=False, nudge=False):
        frames += [f] + ([type(f)(f.image, f.phase, f.values)] * 30 if f.settled else [])
    source = CameraDice(SimulatedCamera([]), frame_budget_ms=1.0)
    spread = []
    got = []
    for i, f in enumerate(frames):
        reads = source.reads
        got += [(i, e.value) for e in source.process_frame(f.image)]
        if source.reads > reads:
            spread.append(source.health.details["read_frames"])
    settled = [i for i, f in enumerate(frames) if f.settled]
    assert [v for _, v in got] == [frames[s].values[0] for s in settled]
    assert all(i >= s + 2 for (i, _), s in zip(got, settled))  # only after rest, as ever
    assert max(spread) > 2  # the reads did take several frames


def test_a_read_under_way_is_dropped_when_the_dice_move_again():
    frames = tray_stream(72, throws=2, values=[[2], [5]], pick_up="never", passing=False, nudge=False)
    # the first throw's dice rest for one frame only before they are thrown again
    first = next(i for i, f in enumerate(frames) if f.settled)
    cut = frames[:first + 1] + [f for f in frames[first + 1:] if f.phase != "rest" or f.values != (2,)]
    second = next(i for i, f in enumerate(cut) if f.settled and f.values == (5,))
    cut[second + 1:second + 1] = [cut[second + 1]] * 30  # and the second throw's long enough to be read
    source = CameraDice(SimulatedCamera([]), frame_budget_ms=1.0)
    events = [e.value for f in cut for e in source.process_frame(f.image)]
    assert events == [5]


def test_reads_start_on_moving_frames_only_when_many_dice_or_an_unknown_size_need_it():
    one, six = CameraDice(SimulatedCamera([]), expected_dice=1), CameraDice(SimulatedCamera([]), expected_dice=6)
    assert one._read_while_moving() and six._read_while_moving()  # no die read yet: its size unknown
    one._side_small = six._side_small = 24.0  # a die read: crops of a known size
    assert not one._read_while_moving()
    assert six._read_while_moving()
    assert not unlimited(expected_dice=6)._read_while_moving()  # every read ends in its first frame anyway


def test_a_late_read_that_saw_the_tray_empty_teaches_the_empty_tray():
    """A cold start's first read often ends late (the foreground test and the guess first). If it
    saw the tray empty, that picture is the empty tray: learnt, as a read on time learns it, so the
    later reads compare with it instead of guessing again (the code before left it unknown)."""
    frames = tray_stream(3, throws=1)
    source = CameraDice(SimulatedCamera([]), expected_dice=1)
    small = TrayView.of(frames[0].image).small
    job = SlicedWork(lambda: RestRead(seen_empty=True))
    job.run_for(math.inf)
    job.last, job.began, job.small = (None, 0), 1, small
    assert not source._empty.known
    assert source._conclude_late(job) == []
    assert source._empty.known and source._empty.unknown is None
    assert np.array_equal(source._empty.picture, small.astype(np.float32))


def test_the_empty_tray_guessed_around_dice_is_close_to_the_real_one():
    frames = tray_stream(81, throws=1, n_dice=3, passing=False, nudge=False)
    empty = TrayView.of(frames[0].image).small
    rest = TrayView.of(next(f for f in frames if f.settled).image).small
    things = foreground_mask(rest, 4.0)
    picture, unknown = guess_empty(rest, things)
    assert unknown.any() and unknown.mean() < 0.2  # the dice's places, not the tray
    error = np.abs(picture - empty.astype(np.float32)).max(axis=2)
    assert np.percentile(error[unknown], 95) < DIFF_LEVEL  # no blob where the dice were, once gone
    assert not changes(empty, picture, 6.0).blobs


def test_a_read_a_passing_hand_interrupts_goes_on_afterwards():
    """A hand passes over the dice while their read is under way (a 1 ms budget: a read takes 5
    frames or more): the read is paused, not begun again, and the throw reported once.

    Whether it was begun again is read from the health record (``reads_resumed``), not from the
    frame the throw is reported in: the slices are CPU time, and three runs of the same frames
    reported it 33, 43 and 42 frames in on a loaded CI machine."""
    frames = tray_stream(73, throws=1, values=[[6]], passing=False, nudge=False, pick_up="always")
    settled = next(i for i, f in enumerate(frames) if f.settled)
    rest = frames[settled].image
    h, w = rest.shape[:2]
    hand = [draw_hand(rest, w * 0.9, h * (0.1 + 0.1 * k), 48.0, np.random.default_rng(k)) for k in range(2)]
    # 1 still frame: the read is under way, and the throw cannot be reported yet (2 still frames were
    # too many once the freed memory was kept, session 20: the read ended on the second one at low
    # load; 3 were too many once a read that ended during the throw's motion was reported at once)
    before = [f.image for f in frames[:settled + 2]]
    # the first read of a run (no die size known yet) takes 20-30 frames of a 1 ms budget: the dice
    # lie still long enough for it, and the emptied tray is watched long enough for a late one
    after = [rest] * 80 + [f.image for f in frames[settled + 3:]] + [frames[-1].image] * 60
    for kind, sequence in (("no hand", before + after), ("hand", before + hand + after)):
        source = CameraDice(SimulatedCamera([]), frame_budget_ms=1.0)
        got = [(i, e.value) for i, img in enumerate(sequence) for e in source.process_frame(img)]
        assert [v for _, v in got] == [6], kind
        details = source.health.details
        assert got[0][0] >= len(before), kind  # the read was under way when the hand came
        assert details.get("reads_unfinished", 0) == 0, kind
        # paused and resumed after the hand -- or, the read nearly done, ended and reported while the
        # hand passed (which one depends on the machine's speed): either way not begun again. (A read
        # may also end during the pick-up at the end, in either kind: reads_ended_moving)
        resumed, ended = details.get("reads_resumed", 0), details.get("reads_ended_moving", 0)
        if kind == "hand":
            assert resumed == 1 or (resumed == 0 and ended >= 1), (kind, details)
        else:
            assert resumed == 0, (kind, details)


def test_a_rested_read_that_ends_while_a_hand_passes_is_reported_at_once():
    """The dice rested long enough to be reported, but their read (the still reader's on the region
    round a black die: 4-7 frames of the default budget) was not done when a hand came over the tray, touching nothing. The read
    goes on during the motion, and its throw is reported in the frame it ends, not once the hand
    has gone (bench session 1105's third throw waited 3 frames so); once, and the still tray
    afterwards is the tray as read (no second read)."""
    # (a black two on a dark table, a run's first throw: its read needs the still reader on the region
    # around it, 25 ms and more, so it is under way when the hand comes after 2 still frames -- a white
    # die's first read may end within them, helped by the reads begun while it rolled)
    frames = tray_stream(4607, throws=1, surface="dark_table", style="black_white", passing=False, nudge=False)
    settled = next(i for i, f in enumerate(frames) if f.settled)
    rest = frames[settled].image
    h, w = rest.shape[:2]
    # a hand moving to and fro over the far corner for long enough for the read to end meanwhile
    hand = [draw_hand(rest, w * 0.9, h * (0.1 + 0.1 * (k % 2)), 48.0, np.random.default_rng(k)) for k in range(200)]
    before = [f.image for f in frames[:settled + 3]]  # 2 still frames: rested, the read under way
    sequence = before + hand + [rest] * 10
    source = CameraDice(SimulatedCamera([]))  # (the default budget: the read ends 4-7 frames after rest)
    got, reads = [], []
    for i, img in enumerate(sequence):
        got += [(i, e.value) for e in source.process_frame(img)]
        reads.append(source.reads)
    assert [v for _, v in got] == [2], (got, source.health.last_error)
    assert len(before) <= got[0][0] < len(before) + len(hand)  # while the hand moved
    assert reads[-1] == reads[len(before) + len(hand) - 1]  # the hand touched nothing: no read after it
    assert source.state == "read" and source.health.details["reads_ended_moving"] == 1


# ---------------------------------------------------------------- a die only the still reader reads

# black dice on black felt or a dark table whose faces the crop reader did not tell from the tray
# (found by search over seeds 600-639; none is a bench seed): their reads go to the still reader,
# on the region around them or on the whole tray, which costs several frames' CPU budget
HARD_DICE = [(612, 1, "dark_table"), (622, 2, "felt_black"), (625, 2, "dark_table"), (633, 1, "dark_table")]


def test_reads_the_still_reader_must_do_end_while_the_dice_lie():
    """The regression: a read that needs the still reader, spread over frames in slices of the
    CPU budget, needed 8-15 frames on the whole tray, and the dice were picked up first: nothing
    was reported. With the default budget the source must report what it reports when every read
    ends in its first frame: while the dice lie if the read fits, else late (the read of the
    picture they lay still in goes on after they are picked up; the bench has the frame counts).
    Which dice the still reader can read is its own business."""
    fallbacks = 0
    for seed, n, surface in HARD_DICE:
        frames = tray_stream(seed, throws=1, n_dice=n, surface=surface, style="black_white", passing=False,
                             nudge=False)
        frames += [frames[-1]] * 60  # the tray left empty a while (frames for a late read)
        free = unlimited(expected_dice=n, frozen_after=1000)
        want = session(free, frames)
        budgeted = CameraDice(SimulatedCamera([]), expected_dice=n, frozen_after=1000)
        got = session(budgeted, frames)
        assert [sorted(v for _, v in e) for e in got] == [sorted(v for _, v in e) for e in want], (seed, got, want)
        d = free.health.details
        fallbacks += d["region_reads"] + d["full_reads"]
        assert budgeted.health.details.get("reads_unfinished", 0) == 0
    assert fallbacks >= 1  # the still reader was needed (else this tests nothing)
