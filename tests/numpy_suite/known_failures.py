"""The tests of NumPy's test_ufunc.py and test_umath.py that fail against ufuncx, and
why: ufuncx has no object, datetime or string loops (out of scope), and a few
tests need NumPy internals. Written from a run with UFX_NUMPY_SUITE_REPORT set;
ufuncx_numpy_shim.py marks them strict xfail."""

# The NumPy release whose test files these names come from.
NUMPY_RELEASE = "2.4"

KNOWN_FAILURES = {
    'test_ufunc::TestLowlevelAPIAccess::test__get_strided_loop_errors_bad_call_info':
        "NumPy's private low-level loop API",
    'test_ufunc::TestLowlevelAPIAccess::test__get_strided_loop_errors_bad_strides[1]':
        "NumPy's private low-level loop API",
    'test_ufunc::TestLowlevelAPIAccess::test__get_strided_loop_errors_bad_strides[strides1]':
        "NumPy's private low-level loop API",
    'test_ufunc::TestLowlevelAPIAccess::test__get_strided_loop_errors_bad_strides[strides2]':
        "NumPy's private low-level loop API",
    'test_ufunc::TestLowlevelAPIAccess::test_loop_access':
        "NumPy's private low-level loop API",
    'test_ufunc::TestLowlevelAPIAccess::test_weird_dtypes':
        'string loop',
    'test_ufunc::TestUfunc::test_at_no_loop_for_op':
        "string dtype; NumPy's private _UFuncNoLoopError class is expected",
    'test_ufunc::TestUfunc::test_cast_safety_scalar[add]':
        'object loop',
    'test_ufunc::TestUfunc::test_cast_safety_scalar[equal]':
        'object loop',
    'test_ufunc::TestUfunc::test_cast_safety_scalar_special':
        "NumPy runs this comparison in an object loop (casting='equiv' with a Python int beyond int64)",
    'test_ufunc::TestUfunc::test_forced_dtype_times':
        'datetime/timedelta loop',
    'test_ufunc::TestUfunc::test_initial_reduction':
        'object loop',
    'test_ufunc::TestUfunc::test_invalid_args':
        'object loop (its error message)',
    'test_ufunc::TestUfunc::test_logical_ufuncs_object_signatures[signature0-logical_and]':
        'object loop',
    'test_ufunc::TestUfunc::test_logical_ufuncs_object_signatures[signature0-logical_or]':
        'object loop',
    'test_ufunc::TestUfunc::test_logical_ufuncs_object_signatures[signature1-logical_and]':
        'object loop',
    'test_ufunc::TestUfunc::test_logical_ufuncs_object_signatures[signature1-logical_or]':
        'object loop',
    'test_ufunc::TestUfunc::test_logical_ufuncs_object_signatures[signature2-logical_and]':
        'object loop',
    'test_ufunc::TestUfunc::test_logical_ufuncs_object_signatures[signature2-logical_or]':
        'object loop',
    'test_ufunc::TestUfunc::test_matvec':
        'object loop',
    'test_ufunc::TestUfunc::test_object_array_accumulate_failure':
        'object loop',
    'test_ufunc::TestUfunc::test_object_array_accumulate_inplace':
        'object loop',
    'test_ufunc::TestUfunc::test_object_array_reduceat_failure':
        'object loop',
    'test_ufunc::TestUfunc::test_object_array_reduceat_inplace':
        'object loop',
    'test_ufunc::TestUfunc::test_object_array_reduction':
        'object loop',
    'test_ufunc::TestUfunc::test_object_comparison':
        'object loop',
    'test_ufunc::TestUfunc::test_object_logical':
        'object loop',
    'test_ufunc::TestUfunc::test_reduce_identity_depends_on_loop':
        'object loop',
    'test_ufunc::TestUfunc::test_signature_dtype_instances_allowed[dtype]':
        'datetime/timedelta loop',
    'test_ufunc::TestUfunc::test_signature_dtype_instances_allowed[signature]':
        'datetime/timedelta loop',
    'test_ufunc::TestUfunc::test_ufunc_at_basic[a1]':
        "NumPy's test-only rational user dtype",
    'test_ufunc::TestUfunc::test_vecdot':
        'object loop',
    'test_ufunc::TestUfunc::test_vecdot_matvec_vecmat_complex[matmul-shape13-shape23-False]':
        'object loop',
    'test_ufunc::TestUfunc::test_vecdot_matvec_vecmat_complex[matvec-shape12-shape22-False]':
        'object loop',
    'test_ufunc::TestUfunc::test_vecdot_matvec_vecmat_complex[vecdot-shape10-shape20-True]':
        'object loop',
    'test_ufunc::TestUfunc::test_vecdot_matvec_vecmat_complex[vecmat-shape11-shape21-True]':
        'object loop',
    'test_ufunc::TestUfunc::test_vecdot_object_breaks_outer_loop_on_error':
        'object loop',
    'test_ufunc::TestUfunc::test_vecdot_object_no_conjugate':
        'object loop',
    'test_ufunc::TestUfunc::test_vecmatvec_identity[None-vec2]':
        'object loop',
    'test_ufunc::TestUfunc::test_vecmatvec_identity[None-vec3]':
        'object loop',
    'test_ufunc::TestUfunc::test_vecmatvec_identity[matrix1-vec2]':
        'object loop',
    'test_ufunc::TestUfunc::test_vecmatvec_identity[matrix1-vec3]':
        'object loop',
    'test_ufunc::TestUfunc::test_zerosize_reduction':
        'object loop',
    'test_ufunc::TestUfuncGenericLoops::test_binary_PyUFunc_OO_O':
        'object loop',
    'test_ufunc::TestUfuncGenericLoops::test_binary_PyUFunc_OO_O_method':
        'object loop',
    'test_ufunc::TestUfuncGenericLoops::test_binary_PyUFunc_On_Om_method':
        'object loop',
    'test_ufunc::TestUfuncGenericLoops::test_python_complex_conjugate':
        'object loop',
    'test_ufunc::TestUfuncGenericLoops::test_unary_PyUFunc_O_O_method_full[absolute]':
        'object loop',
    'test_ufunc::TestUfuncGenericLoops::test_unary_PyUFunc_O_O_method_full[arccos]':
        'object loop',
    'test_ufunc::TestUfuncGenericLoops::test_unary_PyUFunc_O_O_method_full[arccosh]':
        'object loop',
    'test_ufunc::TestUfuncGenericLoops::test_unary_PyUFunc_O_O_method_full[arcsin]':
        'object loop',
    'test_ufunc::TestUfuncGenericLoops::test_unary_PyUFunc_O_O_method_full[arcsinh]':
        'object loop',
    'test_ufunc::TestUfuncGenericLoops::test_unary_PyUFunc_O_O_method_full[arctan]':
        'object loop',
    'test_ufunc::TestUfuncGenericLoops::test_unary_PyUFunc_O_O_method_full[arctanh]':
        'object loop',
    'test_ufunc::TestUfuncGenericLoops::test_unary_PyUFunc_O_O_method_full[cbrt]':
        'object loop',
    'test_ufunc::TestUfuncGenericLoops::test_unary_PyUFunc_O_O_method_full[ceil]':
        'object loop',
    'test_ufunc::TestUfuncGenericLoops::test_unary_PyUFunc_O_O_method_full[conjugate0]':
        'object loop',
    'test_ufunc::TestUfuncGenericLoops::test_unary_PyUFunc_O_O_method_full[conjugate1]':
        'object loop',
    'test_ufunc::TestUfuncGenericLoops::test_unary_PyUFunc_O_O_method_full[cos]':
        'object loop',
    'test_ufunc::TestUfuncGenericLoops::test_unary_PyUFunc_O_O_method_full[cosh]':
        'object loop',
    'test_ufunc::TestUfuncGenericLoops::test_unary_PyUFunc_O_O_method_full[deg2rad]':
        'object loop',
    'test_ufunc::TestUfuncGenericLoops::test_unary_PyUFunc_O_O_method_full[degrees]':
        'object loop',
    'test_ufunc::TestUfuncGenericLoops::test_unary_PyUFunc_O_O_method_full[exp2]':
        'object loop',
    'test_ufunc::TestUfuncGenericLoops::test_unary_PyUFunc_O_O_method_full[exp]':
        'object loop',
    'test_ufunc::TestUfuncGenericLoops::test_unary_PyUFunc_O_O_method_full[expm1]':
        'object loop',
    'test_ufunc::TestUfuncGenericLoops::test_unary_PyUFunc_O_O_method_full[fabs]':
        'object loop',
    'test_ufunc::TestUfuncGenericLoops::test_unary_PyUFunc_O_O_method_full[floor]':
        'object loop',
    'test_ufunc::TestUfuncGenericLoops::test_unary_PyUFunc_O_O_method_full[log10]':
        'object loop',
    'test_ufunc::TestUfuncGenericLoops::test_unary_PyUFunc_O_O_method_full[log1p]':
        'object loop',
    'test_ufunc::TestUfuncGenericLoops::test_unary_PyUFunc_O_O_method_full[log2]':
        'object loop',
    'test_ufunc::TestUfuncGenericLoops::test_unary_PyUFunc_O_O_method_full[log]':
        'object loop',
    'test_ufunc::TestUfuncGenericLoops::test_unary_PyUFunc_O_O_method_full[logical_not]':
        'object loop',
    'test_ufunc::TestUfuncGenericLoops::test_unary_PyUFunc_O_O_method_full[negative]':
        'object loop',
    'test_ufunc::TestUfuncGenericLoops::test_unary_PyUFunc_O_O_method_full[positive]':
        'object loop',
    'test_ufunc::TestUfuncGenericLoops::test_unary_PyUFunc_O_O_method_full[rad2deg]':
        'object loop',
    'test_ufunc::TestUfuncGenericLoops::test_unary_PyUFunc_O_O_method_full[radians]':
        'object loop',
    'test_ufunc::TestUfuncGenericLoops::test_unary_PyUFunc_O_O_method_full[reciprocal]':
        'object loop',
    'test_ufunc::TestUfuncGenericLoops::test_unary_PyUFunc_O_O_method_full[rint]':
        'object loop',
    'test_ufunc::TestUfuncGenericLoops::test_unary_PyUFunc_O_O_method_full[sign]':
        'object loop',
    'test_ufunc::TestUfuncGenericLoops::test_unary_PyUFunc_O_O_method_full[sin]':
        'object loop',
    'test_ufunc::TestUfuncGenericLoops::test_unary_PyUFunc_O_O_method_full[sinh]':
        'object loop',
    'test_ufunc::TestUfuncGenericLoops::test_unary_PyUFunc_O_O_method_full[sqrt]':
        'object loop',
    'test_ufunc::TestUfuncGenericLoops::test_unary_PyUFunc_O_O_method_full[square]':
        'object loop',
    'test_ufunc::TestUfuncGenericLoops::test_unary_PyUFunc_O_O_method_full[tan]':
        'object loop',
    'test_ufunc::TestUfuncGenericLoops::test_unary_PyUFunc_O_O_method_full[tanh]':
        'object loop',
    'test_ufunc::TestUfuncGenericLoops::test_unary_PyUFunc_O_O_method_full[trunc]':
        'object loop',
    'test_ufunc::TestUfuncGenericLoops::test_unary_PyUFunc_O_O_method_simple':
        'object loop',
    'test_ufunc::test_addition_string_types[S-U]':
        'string loop',
    'test_ufunc::test_addition_string_types[S-V]':
        'string loop',
    'test_ufunc::test_addition_string_types[S-d]':
        'string loop',
    'test_ufunc::test_addition_string_types[U-S]':
        'string loop',
    'test_ufunc::test_addition_string_types[U-l]':
        'string loop',
    'test_ufunc::test_reduce_casterrors[0]':
        'object loop',
    'test_ufunc::test_reduce_casterrors[12288]':
        'object loop',
    'test_ufunc::test_reduce_casterrors[4096]':
        'object loop',
    'test_ufunc::test_ufunc_input_casterrors[0]':
        'object loop',
    'test_ufunc::test_ufunc_input_casterrors[12288]':
        'object loop',
    'test_ufunc::test_ufunc_out_casterrors':
        'object loop',
    'test_umath::TestAdd_newdoc_ufunc::test_ufunc_arg':
        'numpy._core.umath._add_newdoc_ufunc takes only a genuine numpy.ufunc',
    'test_umath::TestBitwiseUFuncs::test_bitwise_count[input_dtype_obj15-65]':
        'object loop',
    'test_umath::TestBitwiseUFuncs::test_reduction':
        'object loop',
    'test_umath::TestBitwiseUFuncs::test_types':
        'object loop',
    'test_umath::TestBitwiseUFuncs::test_values':
        'object loop',
    'test_umath::TestComparisons::test_ignore_object_identity_in_equal':
        'object loop',
    'test_umath::TestComparisons::test_ignore_object_identity_in_not_equal':
        'object loop',
    'test_umath::TestComparisons::test_object_dtype':
        'object loop',
    'test_umath::TestMaximum::test_object_array':
        'object loop',
    'test_umath::TestMaximum::test_object_nans':
        'object loop',
    'test_umath::TestMinimum::test_object_array':
        'object loop',
    'test_umath::TestMinimum::test_object_nans':
        'object loop',
    'test_umath::TestPositive::test_valid':
        'object loop',
    'test_umath::TestRationalFunctions::test_decimal':
        'object loop',
    'test_umath::TestRationalFunctions::test_gcd_object':
        'object loop',
    'test_umath::TestRationalFunctions::test_huge_integers':
        'object loop',
    'test_umath::TestRationalFunctions::test_inf_and_nan':
        'object loop',
    'test_umath::TestRationalFunctions::test_lcm_object':
        'object loop',
    'test_umath::TestRoundingFunctions::test_fraction':
        'object loop',
    'test_umath::TestRoundingFunctions::test_object_direct':
        'object loop',
    'test_umath::TestRoundingFunctions::test_object_indirect':
        'object loop',
    'test_umath::TestSign::test_sign_dtype_object':
        'object loop',
    'test_umath::TestSpecialMethods::test_ufunc_docstring':
        "compares the ufunc's __dict__ with NumPy's exactly (__module__ 'numpy', __qualname__)",
    'test_nep50_promotions::test_nep50_huge_integers[add]':
        'object loop (NumPy takes a Python int beyond uint64 as an object array)',
    'test_nep50_promotions::test_nep50_huge_integers[power]':
        'object loop (NumPy takes a Python int beyond uint64 as an object array)',
    'test_nep50_promotions::test_integer_integer_comparison[equal]':
        'object loop (compares object arrays of Python ints)',
    'test_nep50_promotions::test_integer_integer_comparison[not_equal]':
        'object loop (compares object arrays of Python ints)',
    'test_nep50_promotions::test_integer_integer_comparison[less_equal]':
        'object loop (compares object arrays of Python ints)',
    'test_nep50_promotions::test_integer_integer_comparison[less]':
        'object loop (compares object arrays of Python ints)',
    'test_nep50_promotions::test_integer_integer_comparison[greater_equal]':
        'object loop (compares object arrays of Python ints)',
    'test_nep50_promotions::test_integer_integer_comparison[greater]':
        'object loop (compares object arrays of Python ints)',
}
