"""The test framework: every helper and fixture library the tests share (the real CLI
run as a subprocess, headless Chromium, the Xen and fleet labs, guest boots, synthetic
campaigns, the repository root). Test modules import from here and never from each other
(tests/unit/test_test_imports.py checks it); fixtures defined here reach every test
module through tests/conftest.py or an import in the module that uses them."""
