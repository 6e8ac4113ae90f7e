# -*- Python -*-
# lit configuration that runs the GoogleTest binaries named *Tests under
# <build>/unittests, so `check-flash` reports them with the FileCheck tests.

import os

import lit.formats

config.name = "FLASH-Unit"
config.suffixes = []
config.test_exec_root = os.path.join(config.flash_obj_root, "unittests")
config.test_source_root = config.test_exec_root
config.test_format = lit.formats.GoogleTest(config.llvm_build_mode, "Tests")
