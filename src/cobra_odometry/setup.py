from setuptools import find_packages, setup

package_name = 'cobra_odometry'

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
    description='RealSense D435i IMU/image ingestion and ORB-SLAM3 pose to odom conversion.',
    license='Apache-2.0',
    entry_points={
        'console_scripts': [
            'odometry_node = cobra_odometry.entry_points:odometry_node',
            'odom_accuracy = cobra_odometry.accuracy:main',
        ],
    },
)
