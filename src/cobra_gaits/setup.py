from setuptools import find_packages, setup

package_name = 'cobra_gaits'

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
    description='COBRA gait library (sidewinding, CSV trajectories) and the gait node.',
    license='Apache-2.0',
    entry_points={
        'console_scripts': [
            'gait_node = cobra_gaits.entry_points:gait_node',
            'export_gait_csv = cobra_gaits.export_csv:main',
            'path_forecast_node = cobra_gaits.entry_points:path_forecast_node',
            'navigate_node = cobra_gaits.entry_points:navigate_node',
            'teleop = cobra_gaits.teleop:main',
        ],
    },
)
