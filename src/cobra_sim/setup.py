from setuptools import find_packages, setup

package_name = 'cobra_sim'

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
    description='COBRA MuJoCo simulation node that publishes the same topics as the hardware.',
    license='Apache-2.0',
    entry_points={
        'console_scripts': [
            'sim_node = cobra_sim.entry_points:sim_node',
        ],
    },
)
