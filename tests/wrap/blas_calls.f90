! blas_calls.f90 - N calls of dgemm from Fortran (tests/shim/test_wrap.py,
! HPCSHIM_WRAP=@blas): the region dgemm_ must count exactly those calls.
program blas_calls
  implicit none
  integer, parameter :: n = 48
  double precision :: a(n, n), b(n, n), c(n, n)
  integer :: i, j, calls
  character(len=16) :: arg
  external :: dgemm

  calls = 10
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *) calls
  end if
  do j = 1, n
    do i = 1, n
      a(i, j) = mod(i + j, 7) - 2
      b(i, j) = mod(i * j, 5) - 1
    end do
  end do
  c = 0
  do i = 1, calls
    call dgemm('N', 'N', n, n, n, 1d0, a, n, b, n, 1d0, c, n)
  end do
  print '(a,i0,a,i0)', 'dgemm ', calls, ' checksum ', nint(sum(c))
end program blas_calls
