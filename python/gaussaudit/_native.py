"""The C library and its structures (ctypes), mirroring gaussaudit.h field by field.

Only this module knows the C layout; the public functions live in gaussaudit/__init__.py.
"""
import ctypes
import ctypes.util
import os

c_double_p = ctypes.POINTER(ctypes.c_double)


class Result(ctypes.Structure):
    _fields_ = [("val", ctypes.c_double), ("err", ctypes.c_double)]


class Interval(ctypes.Structure):
    _fields_ = [("lo", ctypes.c_double), ("hi", ctypes.c_double)]


class PairInput(ctypes.Structure):
    _fields_ = [("d", ctypes.c_size_t), ("mu_x", c_double_p), ("mu_y", c_double_p),
                ("s_x", c_double_p), ("s_y", c_double_p), ("columns", ctypes.c_double),
                ("field", ctypes.c_char_p * 4)]


class SubsampledInput(ctypes.Structure):
    _fields_ = [("q", ctypes.c_double), ("sigma", ctypes.c_double), ("steps", ctypes.c_double),
                ("add", ctypes.c_int), ("q_txt", ctypes.c_char_p), ("sigma_txt", ctypes.c_char_p),
                ("columns", ctypes.c_double), ("norm", ctypes.c_double),
                ("norm_txt", ctypes.c_char_p), ("q_den_txt", ctypes.c_char_p)]


class PldPmf(ctypes.Structure):
    _fields_ = [("h", ctypes.c_double), ("k0", ctypes.c_long), ("n", ctypes.c_size_t),
                ("mass", c_double_p), ("infinity_mass", ctypes.c_double)]


class Delta(ctypes.Structure):
    _fields_ = [("xy", Result), ("yx", Result), ("method", ctypes.c_int)]


class DeltaCert(ctypes.Structure):
    _fields_ = [("xy", Interval), ("yx", Interval), ("xy_lo", ctypes.c_char * 80),
                ("xy_hi", ctypes.c_char * 80), ("yx_lo", ctypes.c_char * 80),
                ("yx_hi", ctypes.c_char * 80), ("la_bound_xy", ctypes.c_double),
                ("la_bound_yx", ctypes.c_double), ("precision_bits", ctypes.c_long)]


class CertOpts(ctypes.Structure):
    _fields_ = [("digits", ctypes.c_int), ("max_prec", ctypes.c_long),
                ("deadline", ctypes.c_double)]


class AuditOptions(ctypes.Structure):
    _fields_ = [("certified", ctypes.c_int), ("timeout", ctypes.c_double),
                ("allow_paths", ctypes.POINTER(ctypes.c_char_p)), ("nallow", ctypes.c_size_t),
                ("progress", ctypes.c_void_p), ("part", ctypes.c_size_t),
                ("claim", ctypes.c_char_p), ("jobs", ctypes.c_int),
                ("shard", ctypes.c_size_t), ("nshards", ctypes.c_size_t)]


class ClaimInfo(ctypes.Structure):
    _fields_ = [("type", ctypes.c_char_p), ("epsilon", ctypes.c_double),
                ("delta", ctypes.c_double), ("alpha", ctypes.c_double),
                ("bound", ctypes.c_double), ("verdict", ctypes.c_int),
                ("reason", ctypes.c_char_p), ("exact", Result), ("certified", ctypes.c_int),
                ("interval", Interval), ("worst_pair", ctypes.c_char_p),
                ("direction", ctypes.c_int), ("evaluated", ctypes.c_int)]


class CalibrationInfo(ctypes.Structure):
    _fields_ = [("spec_name", ctypes.c_char_p), ("spec_path", ctypes.c_char_p),
                ("kind", ctypes.c_char_p), ("knob", ctypes.c_char_p),
                ("epsilon", ctypes.c_double), ("delta", ctypes.c_double),
                ("value", ctypes.c_double), ("worst_case", ctypes.c_int),
                ("certified", ctypes.c_int), ("upper_at_value", ctypes.c_double),
                ("lower_below", ctypes.c_double), ("note", ctypes.c_char_p),
                ("npublished", ctypes.c_size_t)]


class PublishedInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("value", ctypes.c_double),
                ("leverage", ctypes.c_double), ("exact_leverage", ctypes.c_double),
                ("text", ctypes.c_char_p)]


FORMAT = {"markdown": 0, "md": 0, "html": 1, "json": 2, "junit": 3, "text": 4, "partial": 5}


def _candidates():
    env = os.environ.get("GAUSSAUDIT_LIB")
    if env:
        yield env
    here = os.path.dirname(os.path.abspath(__file__))
    for name in ("libgaussaudit.so", "libgaussaudit.so.0"):
        yield os.path.join(here, name)                               # next to the package
        yield os.path.join(here, os.pardir, os.pardir, "build", name)  # the source tree
    found = ctypes.util.find_library("gaussaudit")                   # the dynamic loader
    if found:
        yield found
    yield "libgaussaudit.so.0"
    for prefix in (os.environ.get("PREFIX"), "/usr/local", "/usr"):
        if prefix:
            yield os.path.join(prefix, "lib", "libgaussaudit.so.0")


# the version of this package; the library it loads must be the same version (its API and
# the struct layouts below are those of that version's gaussaudit.h)
PACKAGE_VERSION = "0.1.0"


def check_version(library_version, path):
    """Raise ImportError unless the library's ga_version() (None: the library has none) is
    PACKAGE_VERSION."""
    if library_version != PACKAGE_VERSION:
        found = ("version %s" % library_version if library_version
                 else "a version without ga_version() (older than 0.1.0)")
        raise ImportError(
            "gaussaudit: the library %s is %s, but this Python package is version %s; its "
            "functions and structures differ. Install the matching library (make install, or "
            "the wheel, which carries its own), or set GAUSSAUDIT_LIB to it."
            % (path, found, PACKAGE_VERSION))


def _load():
    tried = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(path)
            continue
        try:
            found = ctypes.CDLL(path)
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
            continue
        version = None
        if hasattr(found, "ga_version"):
            found.ga_version.restype = ctypes.c_char_p
            found.ga_version.argtypes = []
            version = found.ga_version().decode()
        check_version(version, path)
        return found, path
    raise OSError("libgaussaudit not found; set GAUSSAUDIT_LIB to its path. Tried: " +
                  "; ".join(tried))


lib, LIBRARY_PATH = _load()
libc = ctypes.CDLL(ctypes.util.find_library("c"))
libc.fopen.restype = ctypes.c_void_p
libc.fopen.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
libc.fclose.argtypes = [ctypes.c_void_p]


def _sig(name, res, *args):
    f = getattr(lib, name)
    f.restype = res
    f.argtypes = list(args)
    return f


P = ctypes.c_void_p
ERRMSG = 1024
_sig("ga_init", None)
_sig("ga_strerror", ctypes.c_char_p, ctypes.c_int)
_sig("ga_pair_reduce", ctypes.c_int, ctypes.POINTER(P), ctypes.POINTER(PairInput),
     ctypes.c_char_p, ctypes.c_size_t)
_sig("ga_pair_free", None, P)
_sig("ga_pair_reduce_subsampled", ctypes.c_int, ctypes.POINTER(P),
     ctypes.POINTER(SubsampledInput), ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t)
_sig("ga_pair_rdp_accountant", ctypes.c_int, ctypes.POINTER(ctypes.c_double),
     ctypes.POINTER(ctypes.c_int), P, ctypes.c_double)
_sig("ga_pair_pld_accountant", ctypes.c_int, ctypes.POINTER(ctypes.c_double), P,
     ctypes.c_double, ctypes.c_double)
_sig("ga_subsampled_pld", ctypes.c_int, ctypes.POINTER(PldPmf), ctypes.POINTER(PldPmf),
     ctypes.c_char_p, ctypes.c_char_p, ctypes.c_double, ctypes.c_int, ctypes.c_double)
_sig("ga_subsampled_pld_step", ctypes.c_int, ctypes.POINTER(PldPmf), ctypes.POINTER(PldPmf),
     ctypes.POINTER(SubsampledInput), ctypes.c_double, ctypes.c_int, ctypes.c_double)
_sig("ga_pld_pmf_clear", None, ctypes.POINTER(PldPmf))
_sig("ga_gchisq_work_alloc", P)
_sig("ga_gchisq_work_free", None, P)
_sig("ga_pair_delta", ctypes.c_int, ctypes.POINTER(Delta), P, ctypes.c_double, ctypes.c_int,
     P, P)
_sig("ga_pair_delta_cert", ctypes.c_int, ctypes.POINTER(DeltaCert), P,
     ctypes.POINTER(PairInput), P, ctypes.c_char_p, P)
_sig("ga_pair_epsilon", ctypes.c_int, ctypes.POINTER(Result), ctypes.POINTER(ctypes.c_int), P,
     ctypes.c_double, P, P)
_sig("ga_pair_epsilon_cert", ctypes.c_int, ctypes.POINTER(Interval),
     ctypes.POINTER(ctypes.c_int), P, ctypes.POINTER(PairInput), P, ctypes.c_char_p, P)
_sig("ga_pair_renyi", ctypes.c_int, ctypes.POINTER(Result), ctypes.POINTER(Result), P,
     ctypes.c_double)
_sig("ga_pair_renyi_cert", ctypes.c_int, ctypes.POINTER(Interval), ctypes.POINTER(Interval), P,
     ctypes.POINTER(PairInput), P, ctypes.c_char_p, P)
_sig("ga_audit_options_init", None, ctypes.POINTER(AuditOptions))
_sig("ga_audit_spec_file", ctypes.c_int, ctypes.POINTER(P), ctypes.c_char_p,
     ctypes.POINTER(AuditOptions), ctypes.c_char_p, ctypes.c_size_t)
_sig("ga_audit_spec_text", ctypes.c_int, ctypes.POINTER(P), ctypes.c_char_p, ctypes.c_size_t,
     ctypes.c_char_p, ctypes.POINTER(AuditOptions), ctypes.c_char_p, ctypes.c_size_t)
_sig("ga_audit_merge_files", ctypes.c_int, ctypes.POINTER(P), ctypes.POINTER(ctypes.c_char_p),
     ctypes.c_size_t, ctypes.c_char_p, ctypes.POINTER(AuditOptions), ctypes.c_char_p,
     ctypes.c_size_t)
_sig("ga_audit_result_free", None, P)
_sig("ga_audit_result_verdict", ctypes.c_int, P)
_sig("ga_audit_result_exit_status", ctypes.c_int, P)
_sig("ga_audit_result_nclaims", ctypes.c_size_t, P)
_sig("ga_audit_result_spec_name", ctypes.c_char_p, P)
_sig("ga_audit_result_claim", ctypes.c_int, ctypes.POINTER(ClaimInfo), P, ctypes.c_size_t)
_sig("ga_audit_result_write", ctypes.c_int, P, P, ctypes.c_int)
_sig("ga_verdict_name", ctypes.c_char_p, ctypes.c_int)
_sig("ga_calibrate_spec_file", ctypes.c_int, ctypes.POINTER(P), ctypes.c_char_p, ctypes.c_double,
     ctypes.c_double, ctypes.POINTER(AuditOptions), ctypes.c_char_p, ctypes.c_size_t)
_sig("ga_calibrate_spec_text", ctypes.c_int, ctypes.POINTER(P), ctypes.c_char_p, ctypes.c_size_t,
     ctypes.c_char_p, ctypes.c_double, ctypes.c_double, ctypes.POINTER(AuditOptions),
     ctypes.c_char_p, ctypes.c_size_t)
_sig("ga_calibration_free", None, P)
_sig("ga_calibration_get", None, ctypes.POINTER(CalibrationInfo), P)
_sig("ga_calibration_published", ctypes.c_int, ctypes.POINTER(PublishedInfo), P, ctypes.c_size_t)
_sig("ga_calibration_write", ctypes.c_int, P, P, ctypes.c_int)
_sig("ga_profile_spec_file", ctypes.c_int, ctypes.POINTER(P), ctypes.c_char_p,
     ctypes.POINTER(AuditOptions), ctypes.c_char_p, ctypes.c_size_t)
_sig("ga_profile_spec_text", ctypes.c_int, ctypes.POINTER(P), ctypes.c_char_p, ctypes.c_size_t,
     ctypes.c_char_p, ctypes.POINTER(AuditOptions), ctypes.c_char_p, ctypes.c_size_t)
_sig("ga_profile_free", None, P)
_sig("ga_profile_npairs", ctypes.c_size_t, P)
_sig("ga_profile_delta", ctypes.c_int, ctypes.POINTER(Result), P, ctypes.c_double)
_sig("ga_profile_epsilon", ctypes.c_int, ctypes.POINTER(Result), P, ctypes.c_double)
_sig("ga_profile_delta_cert", ctypes.c_int, ctypes.POINTER(Interval), P, ctypes.c_char_p)
_sig("ga_profile_epsilon_cert", ctypes.c_int, ctypes.POINTER(Interval), P, ctypes.c_char_p)
lib.ga_init()
