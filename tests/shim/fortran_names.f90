! fortran_names.f90 - region names through the Fortran module: trailing
! blanks trimmed, leading blanks kept, the empty name, and names around the
! 256-byte stack buffer of annotate/hpcshim_fortran.c (255 and 256 bytes go
! to the heap path or not, 1000 bytes does).  Each name gets one
! hpc_begin/hpc_end pair; the long ones are 'x' repeated.  Also names this
! thread twice (the last one, 'second   ', must win, trimmed).
program fortran_names
  use hpcshim
  implicit none
  character(len=12) :: padded
  character(len=1000) :: long
  integer :: n, sizes(4) = [255, 256, 257, 1000]

  call hpc_thread_name('first')
  call hpc_thread_name('second   ')

  padded = 'padded'
  call hpc_begin(padded)
  call hpc_end('padded')       ! the same region as the padded variable

  call hpc_begin('  lead')
  call hpc_end('  lead  ')

  call hpc_begin('')
  call hpc_end('   ')          ! all blanks: the empty name too

  long = repeat('x', len(long))
  do n = 1, size(sizes)
    call hpc_begin(long(1:sizes(n)))
    call hpc_end(long(1:sizes(n)))
  end do
  print '(l1)', hpc_active()
end program fortran_names
