"""docs/foxglove_layout.json: a well-formed Foxglove layout whose panels show topics our bags hold."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import yaml

REPO_ROOT = Path(__file__).resolve().parents[1]
LAYOUT = REPO_ROOT / 'docs' / 'foxglove_layout.json'
LOGGER_CONFIG = REPO_ROOT / 'config' / 'logger.yaml'
PANEL_TYPES = {'3D', 'Plot', 'StateTransitions', 'DiagnosticSummary'}
# the state publisher's latched topics, which the bringup's logger is to record (docs/foxglove.md)
STATE_PUBLISHER_TOPICS = {'/robot_description', '/tf', '/tf_static'}


def panels_in(tree: object) -> Iterator[str]:
    if isinstance(tree, str):
        yield tree
    else:
        assert set(tree) >= {'direction', 'first', 'second'} and tree['direction'] in ('row', 'column'), tree
        assert 0 < tree.get('splitPercentage', 50) < 100
        yield from panels_in(tree['first'])
        yield from panels_in(tree['second'])


def topic_of(message_path: str) -> str:
    """'/contact/forces.wrenches[2].force.z' -> '/contact/forces'."""
    return message_path.split('.', 1)[0]


def recorded(topic: str, entries: list[str]) -> bool:
    names = ['/' + entry.lstrip('/') for entry in entries]  # the layout assumes no namespace
    return any(topic == name or (name.endswith('/*') and topic.startswith(name[:-1])) for name in names)


def test_every_panel_is_placed_once_and_configured():
    layout = json.loads(LAYOUT.read_text())
    assert set(layout) >= {'configById', 'layout', 'globalVariables', 'userNodes', 'playbackConfig'}
    placed = list(panels_in(layout['layout']))
    assert sorted(placed) == sorted(layout['configById']) and len(set(placed)) == len(placed)
    assert {panel.split('!')[0] for panel in placed} <= PANEL_TYPES


def test_every_topic_it_shows_is_one_the_logger_records_or_the_state_publisher_latches():
    layout = json.loads(LAYOUT.read_text())['configById']
    topics = {topic_of(p['value']) for config in layout.values() for p in config.get('paths', [])}
    topics |= set(layout['3D!robot']['topics']) | {layout['DiagnosticSummary!diag']['topicToRender']}
    topics |= {layer['topic'] for layer in layout['3D!robot']['layers'].values() if layer.get('sourceType') == 'topic'}
    logger_topics = yaml.safe_load(LOGGER_CONFIG.read_text())['/**/logger']['ros__parameters']['topics']
    unknown = sorted(t for t in topics if not recorded(t, logger_topics) and t not in STATE_PUBLISHER_TOPICS)
    assert not unknown, f'the layout shows topics no bag holds: {unknown}'
    for config in layout.values():  # header stamps where the message has one (sim time in sim bags)
        for path in config.get('paths', []):
            stamped = not path['value'].startswith(('/latch/state', '/tumble/state'))
            assert path['timestampMethod'] == ('headerStamp' if stamped else 'receiveTime'), path


def test_each_contact_series_indexes_the_link_its_label_names():
    """contact/forces holds every link in one message: wrenches[i] belongs to link_names[i]. The
    sim's order (pinned by src/cobra_sim/test/test_sim_node.py): base_link (the head, merged with
    head_link by MuJoCo), then link_1 ... link_11."""
    import re
    links = ['base_link'] + [f'link_{i}' for i in range(1, 12)]
    paths = json.loads(LAYOUT.read_text())['configById']['Plot!contact']['paths']
    assert len(paths) >= 6
    for path in paths:
        match = re.fullmatch(r'/contact/forces\.wrenches\[(\d+)\]\.force\.z', path['value'])
        assert match, path['value']
        assert links[int(match.group(1))] == path['label'], path
