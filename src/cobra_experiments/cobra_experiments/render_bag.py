"""Render a short GIF, MP4 or PNG strip of the robot from a bag, with MuJoCo's offscreen renderer.

  python -m cobra_experiments.render_bag BAG --out robot.gif [--frames 60] [--fps 15] [--start-s 0] [--end-s END]
      [--width 480] [--height 360] [--urdf URDF] [--slope-deg DEG]

The model is built from the URDF exactly as the sim builds it (cobra_sim.mjcf via CobraSim), on
the rigid ground (tilted by the bag's `cobra.slope_deg`, or --slope-deg; a deformable soil is
drawn as that plane). Each frame sets the pose from the bag: the root (base_link) from
`ground_truth/odom` (else `odom`), the joints from `joint_states`, both interpolated at the frame's
time (header stamps). The camera follows the robot's centre from a fixed direction, so travel
shows against the checkered ground. The robot comes from the bag's `cobra.robot` (custom_data),
else COBRA; --urdf overrides. Every frame carries its time in the top-left corner ("t = 3.20 s",
seconds after the bag's first sample, the clock of --start-s/--end-s). `.gif` and `.png` (frames
side by side, at most 12) are written with Pillow; `.mp4` needs the `ffmpeg` program.

OpenGL: MUJOCO_GL as set, else the first of egl, osmesa that can open a context (each tried in a
child process, since MuJoCo binds its backend at import). Exit codes: 0 written; 2 bad input (no
bag, a bag without joint_states or odometry, a bad option, an existing or unwritable --out; one
`error:` line, nothing written); 3 this machine cannot render (no working GL backend, or no ffmpeg
for .mp4): not the input's fault, so a caller (a report, a test) can skip with the reason.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from cobra_common.atomic_file import write_atomically
from cobra_common.bags import BagReadError, open_bag, read_custom_data, stamp_s, topic_matches
from cobra_common.rotations import wxyz_from_xyzw


EXIT_BAD_INPUT = 2
EXIT_CANNOT_RENDER = 3
GL_BACKENDS = ('egl', 'osmesa')
GL_PROBE = ('import mujoco; m = mujoco.MjModel.from_xml_string("<mujoco/>"); '
            'r = mujoco.Renderer(m, 8, 8); d = mujoco.MjData(m); r.update_scene(d); r.render()')
GL_PROBE_TIMEOUT_S = 60.0
MAX_STRIP_FRAMES = 12
CAMERA_DISTANCE_M = 1.8
CAMERA_AZIMUTH_DEG = 135.0
CAMERA_ELEVATION_DEG = -30.0
ROBOT_RGBA = (0.95, 0.55, 0.15, 1.0)  # the modules' orange, against the grey-brown ground
JOINT_STATES, GROUND_TRUTH, ODOM = 'joint_states', 'ground_truth/odom', 'odom'
CHECKER_ASSETS = ('<texture name="render_checker" type="2d" builtin="checker" rgb1="0.78 0.74 0.66" '
                  'rgb2="0.62 0.59 0.52" width="256" height="256"/>\n'
                  '    <material name="render_ground" texture="render_checker" texrepeat="8 8" '
                  'texuniform="true"/>')


class RenderInputError(ValueError):
    """Bad input: the message names the problem and the fix (exit 2)."""


class CannotRender(RuntimeError):
    """This machine lacks what rendering needs (exit 3)."""


@dataclass
class Track:
    """What the frames need from a bag, on header-stamp times [s]."""

    joint_names: list[str]
    joint_times_s: np.ndarray      # (J,)
    joint_positions_rad: np.ndarray  # (J, joints)
    pose_topic: str
    pose_times_s: np.ndarray       # (P,)
    position_m: np.ndarray         # (P, 3)
    quaternion_xyzw: np.ndarray    # (P, 4)
    custom_data: dict[str, str]


def gl_backend(environment: dict[str, str] | None = None) -> tuple[str | None, str]:
    """(a GL backend MuJoCo can render with, why not when None): MUJOCO_GL if set, else the
    first of GL_BACKENDS whose probe succeeds in a child process."""
    environment = dict(os.environ if environment is None else environment)
    candidates = [environment['MUJOCO_GL']] if environment.get('MUJOCO_GL') else list(GL_BACKENDS)
    failures = []
    for backend in candidates:
        try:
            probe = subprocess.run([sys.executable, '-c', GL_PROBE], env={**environment, 'MUJOCO_GL': backend},
                                   capture_output=True, text=True, timeout=GL_PROBE_TIMEOUT_S, check=False)
        except subprocess.TimeoutExpired:
            failures.append(f'{backend}: no context within {GL_PROBE_TIMEOUT_S:g} s')
            continue
        if probe.returncode == 0:
            return backend, ''
        last = (probe.stderr.strip().splitlines() or ['failed'])[-1]
        failures.append(f'{backend}: {last}')
    return None, ('no OpenGL backend works for MuJoCo here (' + '; '.join(failures) + '): install '
                  "Debian's libegl1 (EGL, with a GPU or Mesa) or libosmesa6 (software), or set MUJOCO_GL")


def read_track(bag: Path) -> Track:
    """Joint states and the root pose of `bag` (rosbags: MCAP or sqlite3, ours or ros2 bag's)."""
    try:
        joint_topic, pose_topic, joint_rows, poses = _read_poses(bag)
    except BagReadError as error:
        raise RenderInputError(str(error)) from None
    if not joint_rows or not poses:
        empty = joint_topic if not joint_rows else pose_topic
        raise RenderInputError(f'{bag}: {empty} has no messages; nothing to render')
    joint_rows.sort(key=lambda row: row[0])
    poses.sort(key=lambda row: row[0])
    names = list(dict.fromkeys(name for _, row in joint_rows for name in row))
    positions = np.array([[row.get(name, np.nan) for name in names] for _, row in joint_rows])
    return Track(names, np.array([t for t, _ in joint_rows]), positions, pose_topic,
                 np.array([t for t, _, _ in poses]), np.array([p for _, p, _ in poses]),
                 np.array([q for _, _, q in poses]), read_custom_data(bag))


def _read_poses(bag: Path) -> tuple[str, str, list[tuple[float, dict[str, float]]],
                                    list[tuple[float, list[float], list[float]]]]:
    with open_bag(bag, own_errors=(RenderInputError,)) as reader:
        topics = {c.topic for c in reader.connections}
        joint_topic = next((t for t in sorted(topics) if topic_matches(t, JOINT_STATES)), None)
        pose_topic = next((t for name in (GROUND_TRUTH, ODOM) for t in sorted(topics) if topic_matches(t, name)), None)
        missing = [what for what, topic in (('joint_states', joint_topic), ('ground_truth/odom or odom', pose_topic))
                   if topic is None]
        if missing:
            raise RenderInputError(f"{bag} has no {' and no '.join(missing)} topic: the robot's pose "
                                   f"comes from them (topics in the bag: {', '.join(sorted(topics)) or 'none'})")
        joint_rows: list[tuple[float, dict[str, float]]] = []
        poses: list[tuple[float, list[float], list[float]]] = []
        wanted = [c for c in reader.connections if c.topic in (joint_topic, pose_topic)]
        for connection, _, raw in reader.messages(connections=wanted):
            message = reader.deserialize(raw, connection.msgtype)
            time_s = stamp_s(message.header.stamp)
            if connection.topic == joint_topic:
                joint_rows.append((time_s, dict(zip(message.name, map(float, message.position)))))
            else:
                pose = message.pose.pose
                poses.append((time_s, [pose.position.x, pose.position.y, pose.position.z],
                              [pose.orientation.x, pose.orientation.y, pose.orientation.z, pose.orientation.w]))
    return joint_topic, pose_topic, joint_rows, poses


def frame_times_s(track: Track, frames: int, start_s: float | None, end_s: float | None) -> np.ndarray:
    """`frames` evenly spaced times where both the joints and the pose are known."""
    first = max(track.joint_times_s[0], track.pose_times_s[0])
    last = min(track.joint_times_s[-1], track.pose_times_s[-1])
    begin = first if start_s is None else first + start_s
    finish = last if end_s is None else min(last, first + end_s)
    if finish < begin:
        raise RenderInputError(f'the window --start-s/--end-s holds no data: the bag covers {last - first:.3f} s '
                               f'where joint_states and {track.pose_topic} overlap')
    return np.linspace(begin, finish, frames)


def pose_at(track: Track, time_s: float) -> tuple[np.ndarray, np.ndarray]:
    """Root position (linear) and orientation (normalised lerp of the neighbours) at time_s."""
    times = track.pose_times_s
    position = np.array([np.interp(time_s, times, track.position_m[:, k]) for k in range(3)])
    index = int(np.clip(np.searchsorted(times, time_s), 1, len(times) - 1)) if len(times) > 1 else 0
    if len(times) == 1:
        return position, track.quaternion_xyzw[0] / np.linalg.norm(track.quaternion_xyzw[0])
    before, after = track.quaternion_xyzw[index - 1], track.quaternion_xyzw[index]
    if np.dot(before, after) < 0.0:
        after = -after
    span = times[index] - times[index - 1]
    weight = float(np.clip((time_s - times[index - 1]) / span, 0.0, 1.0)) if span > 0 else 1.0
    quaternion = (1.0 - weight) * before + weight * after
    return position, quaternion / np.linalg.norm(quaternion)


def joints_at(track: Track, time_s: float) -> dict[str, float]:
    """Every joint's position at time_s (linear between samples; joints never measured are left out)."""
    values = {}
    for column, name in enumerate(track.joint_names):
        known = ~np.isnan(track.joint_positions_rad[:, column])
        if known.any():
            values[name] = float(np.interp(time_s, track.joint_times_s[known], track.joint_positions_rad[known, column]))
    return values


def render_mjcf(mjcf: str) -> str:
    """The sim's MJCF with a checkered ground (so travel shows) and no physics changes."""
    mjcf = mjcf.replace('<asset>', '<asset>\n    ' + CHECKER_ASSETS, 1)
    ground = re.search(r'<geom name="ground"[^>]*/>', mjcf)
    if ground is not None:
        mjcf = mjcf.replace(ground.group(0), re.sub(r' rgba="[^"]*"', '', ground.group(0))
                            .replace('<geom ', '<geom material="render_ground" ', 1))
    else:  # a terrain without a plane geom: add one to stand on
        mjcf = mjcf.replace('<worldbody>', '<worldbody>\n    <geom name="ground" type="plane" size="0 0 0.05" '
                            'material="render_ground" contype="0" conaffinity="0"/>', 1)
    return mjcf.replace('<worldbody>', '<worldbody>\n    <light pos="2 2 4" dir="-0.4 -0.4 -1" diffuse="0.5 0.5 0.5"/>', 1)


def robot_urdf(track: Track, urdf: Path | None) -> Path:
    from cobra_description.robot_model import default_urdf_path
    if urdf is not None:
        if not urdf.is_file():
            raise RenderInputError(f'--urdf {urdf} does not exist')
        return urdf
    return default_urdf_path(track.custom_data.get('cobra.robot', 'cobra'))


def render_frames(track: Track, times_s: np.ndarray, urdf: Path, slope_deg: float, width: int,
                  height: int) -> list[np.ndarray]:
    """RGB images (height, width, 3) of the robot at `times_s` (MUJOCO_GL must be set already)."""
    import mujoco
    from cobra_description.robot_model import load_robot_model
    from cobra_sim.engine import CobraSim, SimParams
    from cobra_sim.terrain import make_terrain
    robot = load_robot_model(urdf)
    sim = CobraSim(robot, make_terrain('rigid', '', slope_deg), SimParams(), np.random.default_rng(0))
    model = mujoco.MjModel.from_xml_string(render_mjcf(sim.mjcf))
    model.vis.global_.offwidth = max(model.vis.global_.offwidth, width)
    model.vis.global_.offheight = max(model.vis.global_.offheight, height)
    model.vis.headlight.ambient[:] = 0.45
    model.vis.headlight.diffuse[:] = 0.6
    ground = model.geom('ground').id
    model.geom_rgba[[g for g in range(model.ngeom) if g != ground]] = ROBOT_RGBA
    data = mujoco.MjData(model)
    root = model.joint('root')
    qpos_by_joint = {}
    for name in track.joint_names:
        try:
            qpos_by_joint[name] = int(model.jnt_qposadr[model.joint(name).id])
        except KeyError:
            continue  # a joint of another model (a foreign bag): not drawn
    if not qpos_by_joint:
        raise RenderInputError(f'none of the bag\'s joints {track.joint_names[:4]}... is in {urdf}: '
                               'give the URDF of the recorded robot with --urdf')
    robot_bodies = [model.body(name).id for name in sim.robot_body_names]
    camera = mujoco.MjvCamera()
    camera.type = mujoco.mjtCamera.mjCAMERA_FREE
    camera.distance, camera.azimuth, camera.elevation = CAMERA_DISTANCE_M, CAMERA_AZIMUTH_DEG, CAMERA_ELEVATION_DEG
    images = []
    with mujoco.Renderer(model, height, width) as renderer:
        for time_s in times_s:
            position, quaternion = pose_at(track, float(time_s))
            address = int(model.jnt_qposadr[root.id])
            data.qpos[address:address + 3] = position
            data.qpos[address + 3:address + 7] = wxyz_from_xyzw(quaternion)
            for name, value in joints_at(track, float(time_s)).items():
                if name in qpos_by_joint:
                    data.qpos[qpos_by_joint[name]] = value
            mujoco.mj_kinematics(model, data)
            camera.lookat[:] = data.xpos[robot_bodies].mean(axis=0)
            renderer.update_scene(data, camera=camera)
            images.append(renderer.render().copy())
    return images


def time_overlay(images: list[np.ndarray], seconds: np.ndarray) -> list[np.ndarray]:
    """Each image with "t = <seconds> s" in white on a dark box in its top-left corner, so a GIF
    or strip shows when each frame is."""
    from PIL import Image, ImageDraw, ImageFont
    stamped = []
    for image, second in zip(images, seconds):
        picture = Image.fromarray(image)
        draw = ImageDraw.Draw(picture)
        font = ImageFont.load_default(size=max(10, picture.height // 18))
        text = f't = {second:.2f} s'
        left, top, right, bottom = draw.textbbox((6, 4), text, font=font)
        draw.rectangle((left - 4, top - 3, right + 4, bottom + 3), fill=(20, 20, 20))
        draw.text((6, 4), text, fill=(255, 255, 255), font=font)
        stamped.append(np.asarray(picture))
    return stamped


def write_output(images: list[np.ndarray], out: Path, fps: float) -> None:
    """GIF or PNG strip with Pillow, MP4 through ffmpeg; written to a temporary name, then renamed."""
    from PIL import Image

    def write(partial: Path) -> None:
        if out.suffix == '.gif':
            frames = [Image.fromarray(image) for image in images]
            frames[0].save(partial, save_all=True, append_images=frames[1:], duration=round(1000 / fps), loop=0)
        elif out.suffix == '.png':
            step = max(1, math.ceil(len(images) / MAX_STRIP_FRAMES))
            Image.fromarray(np.concatenate(images[::step], axis=1)).save(partial)
        else:  # .mp4 (checked before rendering)
            height, width = images[0].shape[:2]
            command = [shutil.which('ffmpeg') or 'ffmpeg', '-loglevel', 'error', '-y', '-f', 'rawvideo',
                       '-pix_fmt', 'rgb24', '-s', f'{width}x{height}', '-r', f'{fps:g}', '-i', '-',
                       '-pix_fmt', 'yuv420p', '-vf', 'pad=ceil(iw/2)*2:ceil(ih/2)*2', str(partial)]
            subprocess.run(command, input=b''.join(image.tobytes() for image in images), check=True)
    write_atomically(out, write)


def parse_arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog='render_bag.py', description=__doc__.split('\n\n')[0])
    parser.add_argument('bag', type=Path, help='bag directory (or .mcap file)')
    parser.add_argument('--out', type=Path, required=True, help='output: .gif, .png (strip) or .mp4 (needs ffmpeg)')
    parser.add_argument('--frames', type=int, default=60, help='frames over the window (default 60)')
    parser.add_argument('--fps', type=float, default=15.0, help='frames per second of a .gif/.mp4 (default 15)')
    parser.add_argument('--start-s', type=float, help='window start [s after the first sample]')
    parser.add_argument('--end-s', type=float, help='window end [s after the first sample]; default: the end')
    parser.add_argument('--width', type=int, default=480, help='image width [px]')
    parser.add_argument('--height', type=int, default=360, help='image height [px]')
    parser.add_argument('--urdf', type=Path, help="robot URDF; default: the bag's cobra.robot, else COBRA")
    parser.add_argument('--slope-deg', type=float, help="ground tilt [deg]; default: the bag's cobra.slope_deg, else 0")
    return parser.parse_args(argv)


def check_arguments(args: argparse.Namespace) -> None:
    if args.out.suffix not in ('.gif', '.png', '.mp4'):
        raise RenderInputError(f'--out {args.out}: the name must end in .gif, .png (a strip of frames) or .mp4')
    if args.out.exists():
        raise RenderInputError(f'--out {args.out} exists already: choose a new name or move it away')
    if not args.out.parent.is_dir() or not os.access(args.out.parent, os.W_OK):
        raise RenderInputError(f'--out {args.out}: {args.out.parent} is not a writable directory')
    if not 1 <= args.frames <= 10_000:
        raise RenderInputError(f'--frames {args.frames}: give 1 to 10000 frames')
    if not (16 <= args.width <= 4096 and 16 <= args.height <= 4096):
        raise RenderInputError(f'--width/--height {args.width}x{args.height}: give 16 to 4096 px each')
    if not (math.isfinite(args.fps) and args.fps > 0):
        raise RenderInputError(f'--fps {args.fps}: give a positive number')
    if args.slope_deg is not None and not 0.0 <= args.slope_deg < 90.0:
        raise RenderInputError(f'--slope-deg {args.slope_deg}: give 0 <= slope < 90')


def main(argv: list[str] | None = None) -> int:
    args = parse_arguments(argv)
    try:
        check_arguments(args)
        if args.out.suffix == '.mp4' and shutil.which('ffmpeg') is None:
            raise CannotRender('.mp4 needs the ffmpeg program (not found on PATH): install ffmpeg or write '
                               f'{args.out.with_suffix(".gif").name} instead')
        track = read_track(args.bag)
        times_s = frame_times_s(track, args.frames, args.start_s, args.end_s)
        slope_deg = args.slope_deg if args.slope_deg is not None else \
            float(track.custom_data.get('cobra.slope_deg', 0.0) or 0.0)
        urdf = robot_urdf(track, args.urdf)
        backend, reason = gl_backend()
        if backend is None:
            raise CannotRender(reason)
        os.environ['MUJOCO_GL'] = backend  # before mujoco is imported (render_frames)
        images = render_frames(track, times_s, urdf, slope_deg, args.width, args.height)
        first_s = max(track.joint_times_s[0], track.pose_times_s[0])  # t = 0 of --start-s
        write_output(time_overlay(images, times_s - first_s), args.out, args.fps)
    except RenderInputError as error:
        print(f'error: {error}', file=sys.stderr)
        return EXIT_BAD_INPUT
    except CannotRender as error:
        print(f'cannot render: {error}', file=sys.stderr)
        return EXIT_CANNOT_RENDER
    span_s = times_s[-1] - times_s[0]
    print(f'{args.out}: {len(images)} frames of {args.width}x{args.height} over {span_s:.2f} s of '
          f'{args.bag.name} (pose from {track.pose_topic}, MUJOCO_GL={backend})')
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
