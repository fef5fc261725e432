from setuptools import find_packages, setup

package_name = 'cobra_logger'

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
    description='COBRA rosbag2 (MCAP) logger with crash-safe splitting and a recovery command.',
    license='Apache-2.0',
    entry_points={
        'console_scripts': [
            'logger_node = cobra_logger.entry_points:logger_node',
            'recover_bag = cobra_logger.recover:main'
        ],
    },
)
