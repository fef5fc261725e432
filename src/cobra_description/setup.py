from glob import glob

from setuptools import find_packages, setup

package_name = 'cobra_description'

setup(
    name=package_name,
    version='0.1.0',
    packages=find_packages(exclude=['test']),
    data_files=[
        ('share/ament_index/resource_index/packages', ['resource/' + package_name]),
        ('share/' + package_name, ['package.xml']),
        ('share/' + package_name + '/urdf', glob('urdf/*.urdf')),
    ],
    install_requires=['setuptools'],
    zip_safe=True,
    maintainer='COBRA maintainers',
    maintainer_email='cobra-maintainers@example.com',
    description='COBRA robot description: URDF, a pure-Python robot model (joints, axes, limits, frames) and the state publisher (robot_description, /tf, /tf_static).',
    license='Apache-2.0',
    entry_points={
        'console_scripts': [
            'state_publisher_node = cobra_description.entry_points:state_publisher_node',
        ],
    },
)
