! fortran_work.f90 - annotated Fortran sample: memory in one region,
! arithmetic in another, nested regions inside.
!
! Usage: fortran_work [PAGES [STEPS]]     (defaults 1000 and 4)
!
! Regions, all inside "total":
!   "touch"    allocates PAGES x 4 KiB (glibc maps an allocation this
!              large afresh) and writes one element per 4 KiB page: under
!              hpcshim its page-faults are exactly PAGES.
!   "compute"  named through a blank-padded CHARACTER variable (trailing
!              blanks are ignored); STEPS nested "step" regions, each
!              summing 2,000,000 terms of the Leibniz series for pi.
! The main thread is named "fortran-main" (hpc_thread_name).  The program
! prints whether it is being counted (hpc_active), then the results.
program fortran_work
  use hpcshim
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: per_page = 4096 / 8   ! real(dp) elements per page
  integer, parameter :: terms = 2000000
  integer :: npages, nsteps, i, k
  real(dp), allocatable :: a(:)
  real(dp) :: touched, series
  character(len=16) :: rname
  character(len=32) :: arg

  npages = 1000
  nsteps = 4
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) npages
  end if
  if (command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read (arg, *) nsteps
  end if

  call hpc_thread_name('fortran-main')
  if (hpc_active()) then
    print '(a)', 'hpcshim: counting this thread'
  else
    print '(a)', 'hpcshim: not loaded'
  end if

  call hpc_begin('total')

  call hpc_begin('touch')
  allocate (a(npages * per_page))
  do i = 1, npages
    a((i - 1) * per_page + 1) = real(i, dp)
  end do
  call hpc_end('touch')

  rname = 'compute'
  series = 0
  call hpc_begin(rname)
  do k = 1, nsteps
    call hpc_begin('step')
    series = series + leibniz((k - 1) * terms, terms)
    call hpc_end('step')
  end do
  call hpc_end(rname)

  touched = sum(a(1::per_page))    ! only the touched pages
  deallocate (a)
  call hpc_end('total')

  print '(a,i0,a,f0.1)', 'pages touched: ', npages, ', sum ', touched
  print '(a,i0,a,f10.8)', 'pi from ', nsteps * terms, ' terms: ', 4 * series

contains

  ! Terms first .. first+n-1 of 1 - 1/3 + 1/5 - ...
  real(dp) function leibniz(first, n)
    integer, intent(in) :: first, n
    integer :: j
    leibniz = 0
    do j = first, first + n - 1
      leibniz = leibniz + real(1 - 2 * mod(j, 2), dp) / real(2 * j + 1, dp)
    end do
  end function leibniz

end program fortran_work
