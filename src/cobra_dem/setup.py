from glob import glob

from setuptools import find_packages, setup

package_name = 'cobra_dem'

setup(
    name=package_name,
    version='0.1.0',
    packages=find_packages(exclude=['test']),
    data_files=[
        ('share/ament_index/resource_index/packages', ['resource/' + package_name]),
        ('share/' + package_name, ['package.xml']),
        ('share/' + package_name + '/config/dem', glob('config/dem/*.yaml')),
    ],
    install_requires=['setuptools'],
    zip_safe=True,
    maintainer='COBRA maintainers',
    maintainer_email='cobra-maintainers@example.com',
    description='DEM granular terrain for tumbling: engine-independent scenarios, LAMMPS and DEM-Engine backends and the ROS-mode node, shipping config/dem.',
    license='Apache-2.0',
    entry_points={
        'console_scripts': [
            'dem_node = cobra_dem.entry_points:dem_node',
        ],
    },
)
