from setuptools import find_packages, setup

package_name = 'cobra_sweeps'

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
    description='Parameter sweeps and soil calibration of headless COBRA sims on Ray.',
    license='Apache-2.0',
    entry_points={
        'console_scripts': [
            'cobra_sweep = cobra_sweeps.cli:main',
        ],
    },
)
