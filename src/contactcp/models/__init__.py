"""Mechanical models: scenes of objects, manipulators and contacts."""

from .bodies import GRAVITY, RigidBody
from .contacts import Body, Contact, Ground, Link, contact_frame
from .planar_quasistatic import PlanarQuasistaticProblem, planar_wrench, prismatic_fingers, revolute_chain_jacobian
from .manipulator import InverseKinematicsError, Manipulator
from .scene import load_system, system_from_dict
from .system import Arm, ContactDynamics, MultibodySystem

__all__ = ["PlanarQuasistaticProblem", "planar_wrench", "prismatic_fingers", "revolute_chain_jacobian",
           "RigidBody", "GRAVITY", "Contact", "Ground", "Link", "Body", "contact_frame",
           "Arm", "MultibodySystem", "ContactDynamics", "Manipulator", "InverseKinematicsError",
           "load_system", "system_from_dict"]
