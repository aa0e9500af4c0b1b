"""Mechanical models: objects, manipulators, contacts, and the systems they form (JSON scene files are
read by :mod:`contactcp.io.scene`)."""

from contactcp.models.bodies import GRAVITY, RigidBody
from contactcp.models.contacts import Body, Contact, Ground, Link, contact_frame
from contactcp.models.manipulator import InverseKinematicsError, Manipulator
from contactcp.models.planar_quasistatic import (
    PlanarQuasistaticProblem,
    planar_wrench,
    prismatic_fingers,
    revolute_chain_jacobian,
)
from contactcp.models.system import Arm, ContactDynamics, MultibodySystem

__all__ = [
    "PlanarQuasistaticProblem",
    "planar_wrench",
    "prismatic_fingers",
    "revolute_chain_jacobian",
    "RigidBody",
    "GRAVITY",
    "Contact",
    "Ground",
    "Link",
    "Body",
    "contact_frame",
    "Arm",
    "MultibodySystem",
    "ContactDynamics",
    "Manipulator",
    "InverseKinematicsError",
]
