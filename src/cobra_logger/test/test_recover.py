"""recover_bag: salvage of cut-off MCAP files, a real SIGKILL of a writer, and the CLI's bad input."""

from __future__ import annotations

import os
import pickle
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml
from mcap.reader import make_reader

from cobra_logger.recover import main, recover_bag, SET_ASIDE_DIR_NAME
from cobra_logger.split_bag import ROSBAGS_MCAP_CHUNK_BYTES, SplitBagWriter, STAGING_DIR_NAME

PACKAGE_DIR = Path(__file__).resolve().parents[1]
JOINT_STATE = 'sensor_msgs/msg/JointState'
WIDTH = 800  # about 19 kB per message: about 54 messages per 1 MiB chunk
MESSAGES = 200


@pytest.fixture(scope='module')
def complete_file(tmp_path_factory, make_joint_state) -> Path:
    """One complete single-split bag file of MESSAGES large JointStates (several chunks)."""
    bag_dir = tmp_path_factory.mktemp('source') / 'source'
    writer = SplitBagWriter(bag_dir, split_duration_s=3600.0)
    writer.add_topic('/joint_states', JOINT_STATE)
    for seq in range(MESSAGES):
        writer.write('/joint_states', 1_000 + seq, make_joint_state(seq, WIDTH))
    writer.close()
    return bag_dir / 'source_0.mcap'


def messages_in_complete_chunks(path: Path, cut: int) -> int:
    """Messages the first `cut` bytes hold in chunks that end before the cut."""
    with path.open('rb') as stream:
        reader = make_reader(stream)
        summary = reader.get_summary()
        log_times = [message.log_time for _, _, message in reader.iter_messages()]
    count = 0
    for index in summary.chunk_indexes:
        if index.chunk_start_offset + index.chunk_length <= cut:
            count += sum(index.message_start_time <= t <= index.message_end_time for t in log_times)
    return count


def crashed_bag(tmp_path: Path, content: bytes) -> Path:
    """A bag dir whose only split was left in staging, holding `content`, as a killed logger leaves it."""
    bag_dir = tmp_path / 'crashed'
    staged = bag_dir / STAGING_DIR_NAME / 'crashed_0' / 'crashed_0.mcap'
    staged.parent.mkdir(parents=True)
    staged.write_bytes(content)
    return bag_dir


def chunk_boundaries(path: Path) -> list[tuple[int, int]]:
    with path.open('rb') as stream:
        summary = make_reader(stream).get_summary()
    return [(i.chunk_start_offset, i.chunk_start_offset + i.chunk_length) for i in summary.chunk_indexes]


@pytest.mark.parametrize('cut_name', ['header', 'mid_chunk_1', 'end_chunk_1', 'after_index_1',
                                      'mid_chunk_2', 'end_of_data', 'no_end_magic'])
def test_salvages_every_complete_chunk_of_a_cut_file(tmp_path, complete_file, cut_name, decode_seq,
                                                     rosbags_messages, mcap_messages):
    chunks = chunk_boundaries(complete_file)
    assert len(chunks) >= 3
    size = complete_file.stat().st_size
    cut = {
        'header': 40,
        'mid_chunk_1': (chunks[0][0] + chunks[0][1]) // 2,
        'end_chunk_1': chunks[0][1],
        'after_index_1': chunks[0][1] + 5,
        'mid_chunk_2': (chunks[1][0] + chunks[1][1]) // 2,
        'end_of_data': chunks[-1][1],
        'no_end_magic': size - 1,
    }[cut_name]
    bag_dir = crashed_bag(tmp_path, complete_file.read_bytes()[:cut])
    expected = messages_in_complete_chunks(complete_file, cut)

    report = recover_bag(bag_dir)

    assert report.salvaged_messages == {'crashed_0.mcap': expected}
    assert not (bag_dir / STAGING_DIR_NAME).exists()
    meta = yaml.safe_load((bag_dir / 'metadata.yaml').read_text())['rosbag2_bagfile_information']
    assert meta['message_count'] == expected
    if expected:
        assert meta['relative_file_paths'] == ['crashed_0.mcap']
        assert [decode_seq(d) for _, d in mcap_messages(bag_dir / 'crashed_0.mcap')] == list(range(expected))
        assert [decode_seq(d) for d in rosbags_messages(bag_dir)['/joint_states']] == list(range(expected))
    else:
        assert meta['relative_file_paths'] == []
    if cut_name == 'no_end_magic':
        assert expected == MESSAGES


def test_a_zero_filled_tail_after_power_loss_is_ignored(tmp_path, complete_file):
    chunks = chunk_boundaries(complete_file)
    cut = (chunks[1][0] + chunks[1][1]) // 2
    bag_dir = crashed_bag(tmp_path, complete_file.read_bytes()[:cut] + bytes(4096))
    assert recover_bag(bag_dir).salvaged_messages == {
        'crashed_0.mcap': messages_in_complete_chunks(complete_file, cut)}


def test_a_split_closed_but_not_yet_moved_is_kept_as_is(tmp_path, complete_file):
    bag_dir = crashed_bag(tmp_path, complete_file.read_bytes())
    report = recover_bag(bag_dir)
    assert report.salvaged_messages == {'crashed_0.mcap': MESSAGES}
    assert (bag_dir / 'crashed_0.mcap').read_bytes() == complete_file.read_bytes()


WRITER_KILLED_MID_SPLIT = textwrap.dedent('''
    import os, pickle, signal, sys
    sys.path.insert(0, {package_dir!r})
    from cobra_logger.split_bag import SplitBagWriter
    with open({payload_file!r}, 'rb') as stream:
        payloads = pickle.load(stream)
    clock = [0.0]
    writer = SplitBagWriter({bag_dir!r}, split_duration_s=1.0, monotonic=lambda: clock[0])
    writer.add_topic('/joint_states', 'sensor_msgs/msg/JointState')
    for seq, payload in enumerate(payloads):
        writer.write('/joint_states', 1000 + seq, payload)
        if seq < 130:  # two splits of 65 messages close; the third stays open
            clock[0] += 1 / 64
    os.kill(os.getpid(), signal.SIGKILL)
''')


def test_sigkill_of_a_writer_loses_less_than_one_chunk_of_the_open_split(
        tmp_path, make_joint_state, decode_seq, rosbags_messages, mcap_messages):
    bag_dir = tmp_path / 'killed'
    count = 2 * 65 + 150  # two closed splits of 65 messages, 150 messages (about 2.8 MiB) left open
    payload_file = tmp_path / 'payloads.pickle'
    payload_file.write_bytes(pickle.dumps([make_joint_state(seq, WIDTH) for seq in range(count)]))
    script = WRITER_KILLED_MID_SPLIT.format(package_dir=str(PACKAGE_DIR), payload_file=str(payload_file),
                                            bag_dir=str(bag_dir))
    result = subprocess.run([sys.executable, '-c', script], capture_output=True, timeout=60)
    assert result.returncode == -signal.SIGKILL, result.stderr.decode()

    closed = sorted(p.name for p in bag_dir.glob('*.mcap'))
    assert closed == ['killed_0.mcap', 'killed_1.mcap']
    assert [len(mcap_messages(bag_dir / name)) for name in closed] == [65, 65]
    assert sum(len(v) for v in rosbags_messages(bag_dir).values()) == 130  # valid before recovery

    report = recover_bag(bag_dir)

    recovered = [decode_seq(d) for d in rosbags_messages(bag_dir)['/joint_states']]
    assert recovered == list(range(len(recovered)))
    messages_per_chunk = ROSBAGS_MCAP_CHUNK_BYTES // len(make_joint_state(0, WIDTH))
    assert report.salvaged_messages['killed_2.mcap'] >= 150 - messages_per_chunk - 1
    assert count - len(recovered) <= messages_per_chunk + 1
    assert report.message_count == len(recovered)


def test_recovering_a_complete_bag_changes_nothing(tmp_path, complete_file, rosbags_messages):
    bag_dir = tmp_path / 'done'
    bag_dir.mkdir()
    shutil.copy(complete_file, bag_dir / 'done_0.mcap')
    first = recover_bag(bag_dir)
    second = recover_bag(bag_dir)
    assert first.message_count == second.message_count == MESSAGES
    assert first.salvaged_messages == second.salvaged_messages == {}
    assert len(rosbags_messages(bag_dir)['/joint_states']) == MESSAGES


def test_cli_recovers_and_reports(tmp_path, complete_file, capsys):
    chunks = chunk_boundaries(complete_file)
    bag_dir = crashed_bag(tmp_path, complete_file.read_bytes()[:chunks[1][1]])
    assert main([str(bag_dir)]) == 0
    out = capsys.readouterr().out
    expected = messages_in_complete_chunks(complete_file, chunks[1][1])
    assert f'salvaged {expected} messages from unfinished split crashed_0.mcap' in out
    assert f'1 files, {expected} messages' in out


@pytest.mark.parametrize('make_input, problem', [
    (lambda d: d / 'missing', 'does not exist'),
    (lambda d: (d / 'file.txt').write_text('x') and d / 'file.txt', 'is a file'),
    (lambda d: d, 'it is not a bag'),
])
def test_cli_rejects_what_is_not_a_bag(tmp_path, capsys, make_input, problem):
    assert main([str(make_input(tmp_path))]) == 2
    assert problem in capsys.readouterr().err


def test_console_entry_point_exit_status(tmp_path):
    result = subprocess.run([sys.executable, '-m', 'cobra_logger.recover', str(tmp_path / 'nope')],
                            capture_output=True, text=True, timeout=60,
                            env={**os.environ, 'PYTHONPATH': str(PACKAGE_DIR)})
    assert result.returncode == 2
    assert 'recover_bag: error:' in result.stderr and 'does not exist' in result.stderr


def set_aside_files(bag_dir: Path) -> dict[str, bytes]:
    """Every file recovery moved aside, by its path inside the set-aside folder."""
    folder = bag_dir / SET_ASIDE_DIR_NAME
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob('*')) if p.is_file()}


def test_a_file_recovery_does_not_know_in_recording_is_set_aside_and_named(tmp_path, complete_file, capsys):
    chunks = chunk_boundaries(complete_file)
    bag_dir = crashed_bag(tmp_path, complete_file.read_bytes()[:chunks[1][1]])
    stray = complete_file.read_bytes()
    (bag_dir / STAGING_DIR_NAME / 'copied_here.mcap').write_bytes(stray)
    (bag_dir / STAGING_DIR_NAME / 'crashed_0' / 'notes.txt').write_text('joint 3 squeaks')
    (bag_dir / STAGING_DIR_NAME / 'other').mkdir()
    (bag_dir / STAGING_DIR_NAME / 'other' / 'other.mcap').write_bytes(b'not mcap')

    assert main([str(bag_dir)]) == 0

    out = capsys.readouterr().out
    kept = set_aside_files(bag_dir)
    assert kept['copied_here.mcap'] == stray
    assert kept['crashed_0/notes.txt'] == b'joint 3 squeaks'
    assert kept['other/other.mcap'] == b'not mcap'
    for name in ('copied_here.mcap', 'crashed_0/notes.txt', 'other/other.mcap'):
        assert f'{STAGING_DIR_NAME}/{name} -> {SET_ASIDE_DIR_NAME}/{name}' in out, out
    assert not (bag_dir / STAGING_DIR_NAME).exists()
    expected = messages_in_complete_chunks(complete_file, chunks[1][1])
    assert f'1 files, {expected} messages' in out  # the stray copy is not counted into the bag


def test_the_cut_original_of_a_salvaged_split_is_kept(tmp_path, complete_file):
    cut = chunk_boundaries(complete_file)[1][1] + 100
    bag_dir = crashed_bag(tmp_path, complete_file.read_bytes()[:cut])
    report = recover_bag(bag_dir)
    assert set_aside_files(bag_dir) == {'crashed_0.mcap': complete_file.read_bytes()[:cut]}
    assert [(p.original.name, p.reason.split(':')[0]) for p in report.set_aside] == [
        ('crashed_0.mcap', 'cut off')]


@pytest.mark.parametrize('cut_name', ['mid_chunk_2', 'header'])
def test_a_split_cut_inside_the_bag_directory_is_salvaged(tmp_path, complete_file, cut_name, capsys, decode_seq,
                                                        rosbags_messages):
    chunks = chunk_boundaries(complete_file)
    cut = {'mid_chunk_2': (chunks[1][0] + chunks[1][1]) // 2, 'header': 40}[cut_name]
    bag_dir = tmp_path / 'copied'
    bag_dir.mkdir()
    shutil.copy(complete_file, bag_dir / 'copied_0.mcap')
    (bag_dir / 'copied_1.mcap').write_bytes(complete_file.read_bytes()[:cut])  # a copy that stopped half way
    expected = messages_in_complete_chunks(complete_file, cut)

    assert main([str(bag_dir)]) == 0

    out = capsys.readouterr().out
    assert f'salvaged {expected} messages from cut-off split copied_1.mcap' in out, out
    assert set_aside_files(bag_dir) == {'copied_1.mcap': complete_file.read_bytes()[:cut]}
    assert f'set aside copied_1.mcap -> {SET_ASIDE_DIR_NAME}/copied_1.mcap: cut off' in out, out
    meta = yaml.safe_load((bag_dir / 'metadata.yaml').read_text())['rosbag2_bagfile_information']
    assert meta['message_count'] == MESSAGES + expected
    assert meta['relative_file_paths'] == ['copied_0.mcap', 'copied_1.mcap'] if expected else ['copied_0.mcap']
    seqs = [decode_seq(d) for d in rosbags_messages(bag_dir)['/joint_states']]
    assert seqs == list(range(MESSAGES)) + list(range(expected))


def test_a_rerun_after_an_interrupted_recovery_overwrites_nothing(tmp_path, complete_file):
    """Killed after the salvaged split went into the bag, before its cut original was set aside."""
    cut_bytes = complete_file.read_bytes()[:chunk_boundaries(complete_file)[1][1]]
    bag_dir = crashed_bag(tmp_path, cut_bytes)
    recover_bag(bag_dir)
    salvaged = (bag_dir / 'crashed_0.mcap').read_bytes()
    staged = bag_dir / STAGING_DIR_NAME / 'crashed_0' / 'crashed_0.mcap'
    staged.parent.mkdir(parents=True)
    staged.write_bytes(cut_bytes)

    report = recover_bag(bag_dir)

    assert (bag_dir / 'crashed_0.mcap').read_bytes() == salvaged
    assert report.salvaged_messages == {}
    assert set_aside_files(bag_dir) == {'crashed_0.mcap': cut_bytes, 'crashed_0.1.mcap': cut_bytes}
    assert 'crashed_0.mcap is in the bag already' in report.set_aside[0].reason


def test_a_staged_split_folder_without_its_file_is_removed_and_the_rest_recovered(tmp_path, complete_file):
    bag_dir = crashed_bag(tmp_path, complete_file.read_bytes())
    (bag_dir / STAGING_DIR_NAME / 'crashed_1').mkdir()  # killed between creating the folder and the file
    assert recover_bag(bag_dir).message_count == MESSAGES
    assert not (bag_dir / STAGING_DIR_NAME).exists() and not (bag_dir / SET_ASIDE_DIR_NAME).exists()


def test_recover_bag_is_a_console_entry_point_of_cobra_logger():
    """`ros2 run cobra_logger recover_bag` needs it; `python -m cobra_logger.recover` works without it."""
    setup_text = (PACKAGE_DIR / 'setup.py').read_text()
    assert "'recover_bag = cobra_logger.recover:main'" in setup_text


def test_a_cut_mcap_of_any_name_in_the_bag_directory_is_salvaged(tmp_path, complete_file):
    cut = chunk_boundaries(complete_file)[1][1]
    bag_dir = tmp_path / 'bag'
    bag_dir.mkdir()
    (bag_dir / 'field_notes.mcap').write_bytes(complete_file.read_bytes()[:cut])
    report = recover_bag(bag_dir)
    assert report.salvaged_messages == {'field_notes.mcap': messages_in_complete_chunks(complete_file, cut)}
    assert set_aside_files(bag_dir) == {'field_notes.mcap': complete_file.read_bytes()[:cut]}
    assert (bag_dir / 'field_notes.mcap').exists() and not (bag_dir / STAGING_DIR_NAME).exists()
