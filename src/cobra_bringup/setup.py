from glob import glob

from setuptools import find_packages, setup

package_name = 'cobra_bringup'

setup(
    name=package_name,
    version='0.1.0',
    packages=find_packages(exclude=['test']),
    data_files=[
        ('share/ament_index/resource_index/packages', ['resource/' + package_name]),
        ('share/' + package_name, ['package.xml']),
        ('share/' + package_name + '/launch', glob('launch/*.launch.py')),
        ('share/' + package_name + '/config', glob('config/*.yaml')),
    ],
    install_requires=['setuptools'],
    zip_safe=True,
    maintainer='COBRA maintainers',
    maintainer_email='cobra-maintainers@example.com',
    description='COBRA launch files, configuration and the pip-mode runner.',
    license='Apache-2.0',
    entry_points={
        'console_scripts': [
            'run = cobra_bringup.runner:main',
            'call = cobra_bringup.call:main',
            'preflight = cobra_bringup.preflight:main',
            'twin = cobra_bringup.twin:main',
        ],
    },
)
