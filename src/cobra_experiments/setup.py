from glob import glob

from setuptools import find_packages, setup

package_name = 'cobra_experiments'

setup(
    name=package_name,
    version='0.1.0',
    packages=find_packages(exclude=['test']),
    data_files=[
        ('share/ament_index/resource_index/packages', ['resource/' + package_name]),
        ('share/' + package_name, ['package.xml']),
    ],
    install_requires=['setuptools'],
    zip_safe=True,
    maintainer='COBRA maintainers',
    maintainer_email='cobra-maintainers@example.com',
    description='Paper reproductions and batch runs (LTS, tumbling, DEM runs and comparisons, renders) as console scripts.',
    license='Apache-2.0',
    entry_points={
        'console_scripts': [
            'dem_run = cobra_experiments.dem_run:main',
            'dem_compare_rigid = cobra_experiments.dem_compare_rigid:main',
            'dem_gpu_check = cobra_experiments.dem_gpu_check:main',
            'reproduce_lts = cobra_experiments.reproduce_lts:main',
            'tumble_report = cobra_experiments.tumble_report:main',
            'render_terrain = cobra_experiments.render_terrain:main',
            'render_bag = cobra_experiments.render_bag:main',
            'validate_terrain = cobra_experiments.validate_terrain:main',
            'tumble_compare = cobra_experiments.tumble_compare:main',
            'sidewind_terrain_compare = cobra_experiments.sidewind_terrain_compare:main',
            'loop_friction = cobra_experiments.loop_friction:main',
            'stride_gap = cobra_experiments.stride_gap:main',
        ],
    },
)
