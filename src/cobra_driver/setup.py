from setuptools import find_packages, setup

package_name = 'cobra_driver'

setup(
    name=package_name,
    version='0.1.0',
    packages=find_packages(exclude=['test']),
    data_files=[
        ('share/ament_index/resource_index/packages', ['resource/' + package_name]),
        ('share/' + package_name, ['package.xml', 'README.md']),
    ],
    install_requires=['setuptools'],
    zip_safe=True,
    maintainer='COBRA maintainers',
    maintainer_email='cobra-maintainers@example.com',
    description='COBRA Dynamixel RS-485 joint driver node (Protocol 2.0, 500 Hz) and a pty servo-bus emulator.',
    license='Apache-2.0',
    entry_points={
        'console_scripts': [
            'driver_node = cobra_driver.entry_points:driver_node',
            'servo_emulator = cobra_driver.emulator:main',
        ],
    },
)
