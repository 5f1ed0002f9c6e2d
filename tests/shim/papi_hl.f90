! papi_hl.f90 - PAPI's high-level regions from Fortran (PAPIF_hl_*),
! nested, with known page faults (tests/shim/test_markers.py).
!
! Usage: papi_hl_f N
!
! N times: region "f_outer" allocates and first-touches OUTER pages (one
! element per 4 KiB page of an allocation glibc maps afresh; never freed,
! so every allocation is a fresh mapping), then region "f_inner" inside it
! INNER pages, with one PAPIF_hl_read; PAPIF_hl_stop at the end.  Prints
! how many calls did not return PAPI_OK (0); exits 1 when one did not.
program papi_hl_f
  implicit none
  integer, parameter :: outer = 40, inner = 36, per_page = 4096
  integer :: n, i, check, bad, calls
  character(len=32) :: arg

  n = 3
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) n
  end if
  bad = 0
  calls = 0
  do i = 1, n
    call PAPIF_hl_region_begin('f_outer', check)
    call tally(check)
    call touch(outer)
    call PAPIF_hl_region_begin('f_inner   ', check)
    call tally(check)
    call touch(inner)
    call PAPIF_hl_read('f_inner', check)
    call tally(check)
    call PAPIF_hl_region_end('f_inner', check)
    call tally(check)
    call PAPIF_hl_region_end('f_outer', check)
    call tally(check)
  end do
  call PAPIF_hl_stop(check)
  call tally(check)
  print '(a,i0,a,i0,a)', 'papi_hl_f: ', calls, ' calls, ', bad, ' not PAPI_OK'
  if (bad /= 0) stop 1
contains
  subroutine tally(rc)
    integer, intent(in) :: rc
    calls = calls + 1
    if (rc /= 0) bad = bad + 1
  end subroutine tally
  subroutine touch(pages)
    integer, intent(in) :: pages
    integer(1), pointer, volatile :: a(:)
    integer :: k
    allocate (a(pages * per_page))
    do k = 1, pages
      a((k - 1) * per_page + 1) = 1
    end do
  end subroutine touch
end program papi_hl_f
