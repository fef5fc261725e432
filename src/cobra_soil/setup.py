from glob import glob

from setuptools import find_packages, setup

package_name = 'cobra_soil'

setup(
    name=package_name,
    version='0.1.0',
    packages=find_packages(exclude=['test']),
    data_files=[
        ('share/ament_index/resource_index/packages', ['resource/' + package_name]),
        ('share/' + package_name, ['package.xml']),
        ('share/' + package_name + '/config/soil', glob('config/soil/*.yaml')),
    ],
    install_requires=['setuptools'],
    zip_safe=True,
    maintainer='COBRA maintainers',
    maintainer_email='cobra-maintainers@example.com',
    description='SCM (Bekker-Wong, Janosi-Hanamoto, bulldozing) and compliant terrain physics: a pure numpy/numba library shipping config/soil.',
    license='Apache-2.0',
    entry_points={
        'console_scripts': [],
    },
)
